import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { makeTempDir } from '../../helpers/temp-dir';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

describe('fleetscope sessions', () => {
  let history: ReturnType<typeof openTempHistory>;
  beforeEach(() => {
    let now = Date.UTC(2026, 10, 1, 12, 0, 0);
    history = openTempHistory({ now: () => (now += 60_000) });
    for (const [title, words] of [
      ['Trip planning', 'flights to Oslo'],
      ['Code review', 'the diff looks fine'],
    ] as const) {
      const s = new SessionScript();
      for (const event of [
        s.started(title),
        ...s.message(`${title}-1`, 'alice', 'bob', [words], { usage: { prompt: 10, completion: 5 } }),
        s.stopped('completed', 'Task done'),
      ]) {
        history.store.append(event);
      }
    }
  });
  afterEach(() => history.cleanup());

  it('prints a readable table, newest first', async () => {
    const io = captureIo();
    expect(await runCli(['sessions', '--data-dir', history.dir], io)).toBe(0);
    const [header, first, second] = io.stdout;
    expect(header).toMatch(
      /^ID\s+TITLE\s+FLEET\s+STATUS\s+STOP REASON\s+MSGS\s+TOKENS\s+COST\s+DURATION\s+WHEN$/,
    );
    expect(first).toMatch(
      /Code review\s+Demo fleet\s+completed\s+Task done\s+1\s+15\s+1 call without a price\s+\d+ms\s+2026-11-01/,
    );
    expect(second).toContain('Trip planning');
    expect(io.stdout.join('\n')).toContain('Showing 2 of 2 sessions.');
  });

  it('searches message content and prints JSON', async () => {
    const io = captureIo();
    expect(await runCli(['sessions', '--json', '--search', 'oslo', '--data-dir', history.dir], io)).toBe(0);
    const page = JSON.parse(io.stdout.join('\n')) as {
      total: number;
      items: Array<{ title: string; messageCount: number }>;
    };
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ title: 'Trip planning', messageCount: 1 });
  });

  it('limits the list and survives search syntax', async () => {
    const io = captureIo();
    expect(
      await runCli(['sessions', '--limit', '1', '--search', 'NEAR("', '--data-dir', history.dir], io),
    ).toBe(0);
    const limited = captureIo();
    expect(await runCli(['sessions', '--limit', '1', '--data-dir', history.dir], limited)).toBe(0);
    expect(limited.stdout.join('\n')).toContain('Showing 1 of 2 sessions.');
    const byTokens = captureIo();
    expect(
      await runCli(['sessions', '--sort', 'tokens', '--json', '--data-dir', history.dir], byTokens),
    ).toBe(0);
    const tokens = (JSON.parse(byTokens.stdout.join('\n')) as { items: Array<{ tokens: number }> }).items.map(
      (item) => item.tokens,
    );
    expect(tokens).toEqual([...tokens].sort((a, b) => b - a));
  });

  it('exits 2 for bad arguments', async () => {
    for (const args of [
      ['--limit', 'lots'],
      ['--limit', '0'],
      ['--sort', 'price'],
      ['--frobnicate'],
      ['extra'],
    ]) {
      const io = captureIo();
      expect(await runCli(['sessions', ...args, '--data-dir', history.dir], io)).toBe(2);
      expect(io.stderr.join('\n')).toContain('Usage: fleetscope sessions');
    }
  });

  it('says so when there is no store yet, without creating one', async () => {
    const empty = makeTempDir();
    const io = captureIo();
    expect(await runCli(['sessions', '--data-dir', empty.dir], io)).toBe(0);
    expect(io.stdout.join('\n')).toContain('No sessions yet');
    empty.remove();
  });
});
