import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { openTempHistory, SessionScript } from '../../helpers/temp-store';

describe('fleetscope show', () => {
  let history: ReturnType<typeof openTempHistory>;
  let session: SessionScript;
  beforeEach(() => {
    history = openTempHistory();
    session = new SessionScript('abc12345-0000-4000-8000-000000000001');
    const s = session;
    for (const event of [
      s.started('Weather check', 'What is the weather?'),
      ...s.message('m1', 'user', 'alice', ['What is the weather?'], { kind: 'task' }),
      s.completed('m2', 'alice', 'bob', 'Looking it up', {}),
      s.messageStarted('m3', 'bob', '*'),
      s.delta('m3', 'Sunny and'),
      s.stopped('stopped', 'Stopped by user'),
    ]) {
      history.store.append(event);
    }
    const other = new SessionScript('abd00000-0000-4000-8000-000000000002');
    history.store.append(other.started('Other'));
  });
  afterEach(() => history.cleanup());

  it('prints the transcript in order with sender → receiver, by unique id prefix', async () => {
    const io = captureIo();
    expect(await runCli(['show', 'abc1', '--data-dir', history.dir], io)).toBe(0);
    const text = io.stdout.join('\n');
    expect(text).toContain('Weather check  (abc12345-0000-4000-8000-000000000001)');
    expect(text).toContain('Status: stopped (Stopped by user)');
    const order = ['user → alice (task)', 'alice → bob (text)', 'bob → everyone (text, partial)'].map(
      (line) => text.indexOf(line),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('  Sunny and');
  });

  it('prints JSON with the session and every message', async () => {
    const io = captureIo();
    expect(await runCli(['show', session.sessionId, '--json', '--data-dir', history.dir], io)).toBe(0);
    const parsed = JSON.parse(io.stdout.join('\n')) as {
      session: { title: string };
      fleet: { name: string };
      messages: Array<{ id: string; state: string }>;
    };
    expect(parsed.session.title).toBe('Weather check');
    expect(parsed.fleet.name).toBe('Demo fleet');
    expect(parsed.messages.map((m) => [m.id, m.state])).toEqual([
      ['m1', 'complete'],
      ['m2', 'complete'],
      ['m3', 'partial'],
    ]);
  });

  it('exits 1 with a clear error for an unknown or ambiguous id', async () => {
    const unknown = captureIo();
    expect(await runCli(['show', 'zzz', '--data-dir', history.dir], unknown)).toBe(1);
    expect(unknown.stderr.join('\n')).toContain('No session with id "zzz"');
    const ambiguous = captureIo();
    expect(await runCli(['show', 'ab', '--data-dir', history.dir], ambiguous)).toBe(1);
    expect(ambiguous.stderr.join('\n')).toContain('matches more than one session');
  });

  it('exits 2 for bad arguments', async () => {
    for (const args of [[], ['a', 'b'], ['abc1', '--frobnicate']]) {
      const io = captureIo();
      expect(await runCli(['show', ...args, '--data-dir', history.dir], io)).toBe(2);
      expect(io.stderr.join('\n')).toContain('Usage: fleetscope show');
    }
  });
});
