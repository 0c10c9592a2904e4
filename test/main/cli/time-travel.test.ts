import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { makeTempDir } from '../../helpers/temp-dir';

interface ShownSession {
  session: { id: string; messageCount: number; status: string };
  forkOf: { sessionId: string; atMessage: number } | null;
  branches: { rootId: string; nodes: Array<{ sessionId: string; label: string; depth: number }> };
  messages: Array<{ from: string; to: string; content: string }>;
}

/**
 * What a newcomer does from the command line: run an example, fork it at the third message with
 * an edited text, see the two branches, compare them, continue one. Every step is the real CLI
 * entry (runCli) over a real store in a temp folder.
 */
describe('time travel from the command line', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let dataDir: string;

  beforeEach(() => {
    temp = makeTempDir();
    dataDir = join(temp.dir, 'data');
  });
  afterEach(() => temp.remove());

  async function cli(...args: string[]) {
    const io = captureIo();
    let raw = '';
    const rawOut = new Writable({
      write(chunk: Buffer, _encoding, done) {
        raw += chunk.toString();
        done();
      },
    });
    const code = await runCli([...args, '--data-dir', dataDir], { ...io, rawOut });
    return { code, stdout: io.stdout.join('\n') + raw, stderr: io.stderr.join('\n'), lines: io.stdout };
  }

  async function show(id: string): Promise<ShownSession> {
    const shown = await cli('show', id, '--json');
    expect(shown.code).toBe(0);
    return JSON.parse(shown.stdout) as ShownSession;
  }

  it('runs an example, forks it at message 3 with an edit, shows both branches, compares and continues them', async () => {
    const run = await cli('run', 'resources/fleets/scripted/debate.json', '--task', 'Remote work?', '--json');
    expect(run.code).toBe(0);
    const parentId = (JSON.parse(run.lines[0] as string) as RunEvent).sessionId;
    const parent = await show(parentId);
    expect(parent.messages.length).toBeGreaterThanOrEqual(4);
    expect(parent.forkOf).toBeNull();

    const fork = await cli(
      'fork',
      parentId.slice(0, 12),
      '--at',
      '3',
      '--edit',
      'Offices are better, full stop.',
    );
    expect(fork.code).toBe(0);
    const forkId = fork.lines[0] as string;
    expect(forkId).toMatch(/^ses_/);
    expect(forkId).not.toBe(parentId);
    expect(fork.stderr).toContain('message 3 edited');

    const forked = await show(forkId);
    expect(forked.forkOf).toEqual({ sessionId: parentId, atMessage: 3 });
    // Messages 1-2 are the parent's (read through its history); 3 is the edit, by the same sender.
    expect(forked.messages.slice(0, 2)).toEqual(parent.messages.slice(0, 2));
    expect(forked.messages[2]).toMatchObject({
      from: parent.messages[2]?.from,
      content: 'Offices are better, full stop.',
    });
    expect(forked.messages.length).toBeGreaterThan(3);
    expect(forked.session.status).toBe('completed');
    expect(forked.branches.rootId).toBe(parentId);
    expect(forked.branches.nodes.map((node) => [node.sessionId, node.depth, node.label])).toEqual([
      [parentId, 0, ''],
      [forkId, 1, 'message 3 edited'],
    ]);

    const text = await cli('show', forkId);
    expect(text.stdout).toContain(`Fork of ${parentId} at message 3`);
    expect(text.stdout).toContain(`* ${'  '}${forkId} @3`);
    expect(text.stdout).toContain('#3 ');

    const listed = await cli('sessions', '--json');
    const items = (
      JSON.parse(listed.stdout) as { items: Array<{ id: string; forkOf: unknown; family: unknown }> }
    ).items;
    expect(items.find((item) => item.id === forkId)).toMatchObject({
      forkOf: { sessionId: parentId, atMessage: 3 },
      family: { rootId: parentId, size: 2, forks: 0 },
    });
    expect(items.find((item) => item.id === parentId)).toMatchObject({
      forkOf: null,
      family: { rootId: parentId, size: 2, forks: 1 },
    });

    const markdown = await cli('compare', parentId, forkId);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain('Messages 1-2 are the same in both; they diverge at message 3.');
    expect(markdown.stdout).toContain('**Offices are**');
    // Session ids are code spans, copied as they are (no `ses\_` escapes).
    expect(markdown.stdout).toContain(`| Session | \`${parentId}\` | \`${forkId}\` |`);
    expect(markdown.stdout).not.toContain('ses\\_');

    const json = await cli('compare', parentId, forkId, '--format', 'json');
    expect(json.code).toBe(0);
    const compared = JSON.parse(json.stdout) as {
      commonPrefix: number;
      divergeAt: number;
      totalPairs: number;
      pairs: Array<{ position: number; same: boolean; segments: unknown[] | null }>;
      agents: Array<{ name: string; a: { messages: number }; b: { messages: number } }>;
    };
    expect(compared.commonPrefix).toBe(2);
    expect(compared.divergeAt).toBe(3);
    expect(compared.pairs).toHaveLength(compared.totalPairs);
    expect(compared.pairs[2]).toMatchObject({ position: 3, same: false });
    expect(compared.pairs[2]?.segments?.length).toBeGreaterThan(1);
    expect(compared.agents.map((agent) => agent.name)).toEqual(
      expect.arrayContaining(['optimist', 'skeptic', 'moderator']),
    );

    const htmlPath = join(temp.dir, 'compare.html');
    const html = await cli('compare', parentId, forkId, '--format', 'html', '-o', htmlPath);
    expect(html.code).toBe(0);
    const page = readFileSync(htmlPath, 'utf8');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('Diverged at message 3');
    expect(page).not.toContain('<script');

    // Every scripted agent of the parent has said its lines: a follow-up would get no answer, so
    // it is refused and the parent stays as it was.
    const untouched = await show(parentId);
    const more = await cli('continue', parentId, '--task', 'One more round, please.', '--json');
    expect(more.code).toBe(1);
    expect(more.stderr).toMatch(/nothing to continue\. Nothing was changed\./);
    expect(await show(parentId)).toEqual(untouched);
    // The fork still reads the parent's first two messages, whatever the parent did since.
    expect((await show(forkId)).messages.slice(0, 2)).toEqual(parent.messages.slice(0, 2));
  });

  it('forks without running, then continues the fork, and refuses bad input with a clear message', async () => {
    const run = await cli('run', 'resources/fleets/scripted/debate.json', '--task', 'Remote work?', '--json');
    const parentId = (JSON.parse(run.lines[0] as string) as RunEvent).sessionId;

    const created = await cli('fork', parentId, '--at', '2', '--no-run', '--json', '--max-messages', '4');
    expect(created.code).toBe(0);
    const fork = (
      JSON.parse(created.stdout) as { fork: { sessionId: string; running: boolean; label: string } }
    ).fork;
    expect(fork).toMatchObject({ running: false, label: 'stop conditions: max-messages 4' });
    const idle = await show(fork.sessionId);
    expect(idle.session.status).toBe('stopped');
    expect(idle.messages).toHaveLength(2);

    const resumed = await cli('continue', fork.sessionId);
    expect(resumed.code).toBe(0);
    const ran = await show(fork.sessionId);
    expect(ran.session.status).toBe('completed');
    // The fork's own condition counts the two messages it shares with its parent.
    expect(ran.messages).toHaveLength(4);

    const missing = await cli('fork', parentId, '--at', '999');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/there is no message 999/);
    const unknown = await cli('fork', 'nope', '--at', '1');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No session with id "nope"');
    const badSet = await cli('fork', parentId, '--at', '2', '--set', 'optimist.colour=red');
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain('--set can change');
    const noAgent = await cli('fork', parentId, '--at', '2', '--set', 'ghost.model=x');
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain('no agent "ghost"');
    const scripted = await cli('fork', parentId, '--at', '2', '--set', 'optimist.model=x');
    expect(scripted.code).toBe(2);
    expect(scripted.stderr).toContain('scripted agent');
    const noAt = await cli('fork', parentId);
    expect(noAt.code).toBe(2);
    expect(noAt.stderr).toContain('--at N is required');
    const badFormat = await cli('compare', parentId, fork.sessionId, '--format', 'pdf');
    expect(badFormat.code).toBe(2);
    const oneSide = await cli('compare', parentId, 'nope');
    expect(oneSide.code).toBe(1);
    expect(oneSide.stderr).toContain('No session with id "nope"');
    const deleted = await cli('continue', 'nope');
    expect(deleted.code).toBe(1);
    // Nothing was created by the refusals: the family is still the parent and one fork.
    expect((await show(parentId)).branches.nodes).toHaveLength(2);
    expect(existsSync(join(dataDir, 'exports'))).toBe(false);
  });
});
