import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventOf, McpServerSpec } from '@shared/domain';
import { createRunCommand } from '../../../src-main/cli/commands/run';
import { captureIo } from '../../helpers/cli-io';
import { ofKind } from '../../helpers/fleet-builders';
import { gone, misbehavingServer } from '../../helpers/mcp-servers';
import { call, results, runWithServers, toolFleet } from './mcp-run-helpers';

const guarded = (requireApproval: McpServerSpec['requireApproval']) =>
  toolFleet(
    { bad: misbehavingServer({}, { requireApproval }) },
    ['bad/*'],
    [call('bad/echo', { text: 'rm -rf /' }, 'after')],
  );

/** Starts a run and answers its first approval question with `answer`. */
async function answered(answer: string, requireApproval: McpServerSpec['requireApproval'] = true) {
  const started = runWithServers({ fleet: guarded(requireApproval), task: 'Echo' });
  const asked = await new Promise<EventOf<'human.requested'>['payload']>((resolve) =>
    started.handle.onDidEvent((event) => {
      if (event.kind === 'human.requested') resolve(event.payload);
    }),
  );
  expect(started.handle.status).toBe('waiting-for-human');
  expect(asked.prompt).toContain("Approve worker's call of bad/echo?");
  expect(asked.prompt).toContain('{"text":"rm -rf /"}');
  started.handle.answer(asked.requestId, answer);
  const summary = await started.handle.done;
  return { ...started, summary, asked };
}

describe('tool calls that need a person’s approval', () => {
  it('approved: the call runs as asked', async () => {
    const { summary, events, pids, asked } = await answered('approve');
    // What the app shows: the server, the tool, the arguments and the schema edits are checked against.
    expect(asked.approval).toMatchObject({
      name: 'bad/echo',
      server: 'bad',
      tool: 'echo',
      arguments: '{"text":"rm -rf /"}',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    expect(asked.approval?.callId).toBe(ofKind(events, 'tool.requested')[0]?.payload.callId);
    expect(summary.status).toBe('completed');
    expect(results(events)[0]).toMatchObject({
      result: 'echo: rm -rf /',
      approval: 'approved',
      isError: false,
    });
    expect(await gone(pids())).toBe(true);
  });

  it('denied: the agent reads the reason instead of a result', async () => {
    const { summary, events } = await answered('deny not on my machine');
    expect(summary.status).toBe('completed');
    expect(results(events)[0]).toMatchObject({
      result: 'Error: a person denied this call: not on my machine',
      approval: 'denied',
      isError: true,
    });
  });

  it('edited: the call runs with the arguments the person gave', async () => {
    const { events } = await answered('{"text": "ls"}', ['echo']);
    expect(results(events)[0]).toMatchObject({ result: 'echo: ls', approval: 'edited' });
  });

  it('a tool not in the list runs without asking; --approve-all runs every call without asking', async () => {
    const unlisted = runWithServers({ fleet: guarded(['fail']), task: 'Echo' });
    expect((await unlisted.handle.done).status).toBe('completed');
    expect(ofKind(unlisted.events, 'human.requested')).toHaveLength(0);
    const all = runWithServers({ fleet: guarded(true), task: 'Echo', approveAll: true });
    expect((await all.handle.done).status).toBe('completed');
    expect(ofKind(all.events, 'human.requested')).toHaveLength(0);
    expect(results(all.events)[0]?.result).toBe('echo: rm -rf /');
  });

  it('two calls in one reply are asked about one at a time, and run once both are answered', async () => {
    const fleet = toolFleet(
      { bad: misbehavingServer({}, { requireApproval: true }) },
      ['bad/*'],
      [
        {
          content: 'both',
          toolCalls: [
            { name: 'bad/echo', arguments: { text: 'one' } },
            { name: 'bad/echo', arguments: { text: 'two' } },
          ],
        },
      ],
    );
    const started = runWithServers({ fleet, task: 'Echo twice' });
    const asked: Array<EventOf<'human.requested'>['payload']> = [];
    let next: (() => void) | null = null;
    started.handle.onDidEvent((event) => {
      if (event.kind !== 'human.requested') return;
      asked.push(event.payload);
      next?.();
    });
    const question = () =>
      new Promise<void>((resolve) => {
        if (asked.length > answered) resolve();
        else next = resolve;
      });
    let answered = 0;
    await question();
    expect(asked.map((payload) => payload.approval?.arguments)).toEqual(['{"text":"one"}']);
    started.handle.answer(asked[0]!.requestId, 'approve');
    answered += 1;
    await question();
    expect(results(started.events)).toHaveLength(0);
    expect(asked[1]?.approval?.arguments).toBe('{"text":"two"}');
    started.handle.answer(asked[1]!.requestId, 'deny not twice');
    expect((await started.handle.done).status).toBe('completed');
    expect(results(started.events).map((result) => result.result)).toEqual([
      'echo: one',
      'Error: a person denied this call: not twice',
    ]);
  });

  it('cancelling while the question is open ends the run and the server', async () => {
    const started = runWithServers({ fleet: guarded(true), task: 'Echo' });
    await new Promise<void>((resolve) =>
      started.handle.onDidEvent((event) => {
        if (event.kind === 'human.requested') resolve();
      }),
    );
    started.handle.stop();
    expect((await started.handle.done).status).toBe('stopped');
    expect(await gone(started.pids())).toBe(true);
  });
});

describe('fleetscope run with approvals', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fleetscope-approve-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const fleetFile = () => {
    const path = join(dir, 'fleet.json');
    writeFileSync(path, JSON.stringify(guarded(true)));
    return path;
  };

  it('without a terminal, refuses to start and says how to go on', async () => {
    const io = captureIo({});
    const code = await createRunCommand().run([fleetFile(), '--task', 'x', '--data-dir', dir], io);
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toContain('approve each call of bad/*');
    expect(io.stderr.join('\n')).toContain('--approve-all');
  });

  it('asks on the terminal and takes a denial with its reason', async () => {
    const input = new PassThrough();
    const io = captureIo({});
    const running = createRunCommand({ input: () => input }).run(
      [fleetFile(), '--task', 'x', '--data-dir', dir],
      io,
    );
    await expect
      .poll(() => io.stderr.join('\n'), { timeout: 15_000 })
      .toContain("Approve worker's call of bad/echo?");
    input.write('no, too risky\n');
    expect(await running).toBe(0);
    expect(io.stdout.join('\n') + io.stderr.join('\n')).toContain('a person denied this call: too risky');
  });

  it('--approve-all runs the calls without asking', async () => {
    const io = captureIo({});
    const code = await createRunCommand().run(
      [fleetFile(), '--task', 'x', '--data-dir', dir, '--approve-all'],
      io,
    );
    expect(code).toBe(0);
    expect(io.stderr.join('\n')).not.toContain('Approve');
  });
});
