import type { ToolArgument } from '@shared/domain';
import { describe, expect, it } from 'vitest';
import { ofKind, transcript } from '../../helpers/fleet-builders';
import { gone, misbehavingServer } from '../../helpers/mcp-servers';
import { MAX_RESULT_CHARS } from '../../../src-main/orchestrator/tools/mcp';
import { call, results, runWithServers, toolFleet } from './mcp-run-helpers';

/** A run of one agent calling `tool` on the misbehaving server, then saying "after". */
function callOnce(
  tool: string,
  args: Record<string, ToolArgument> = {},
  options: { env?: Record<string, string>; timeoutMs?: number; stop?: boolean } = {},
) {
  return runWithServers({
    fleet: toolFleet(
      {
        bad: misbehavingServer(options.env ?? {}, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      },
      ['bad/*'],
      [call(`bad/${tool}`, args, 'after')],
      options.stop ? { onToolServerError: 'stop' } : {},
    ),
    task: `Call ${tool}`,
  });
}

describe('a misbehaving MCP server', () => {
  it("an error result is the agent's to read, and the run goes on", async () => {
    const { handle, events, pids } = callOnce('fail');
    expect((await handle.done).status).toBe('completed');
    expect(results(events)[0]).toMatchObject({
      isError: true,
      result: 'the disk is full, try a smaller file',
      server: 'bad',
      tool: 'fail',
    });
    expect(transcript(events)).toContain('worker>user: after');
    expect(await gone(pids())).toBe(true);
  });

  it('a megabyte of output is cut for the model and says how long it was', async () => {
    const { handle, events, pids } = callOnce('big');
    expect((await handle.done).status).toBe('completed');
    const [big] = results(events);
    expect(big?.result.length).toBeLessThan(MAX_RESULT_CHARS + 100);
    expect(big?.result).toContain(`[cut: the result has ${1024 * 1024} characters]`);
    expect(await gone(pids())).toBe(true);
  });

  it('a malformed input schema gives the agent a readable error instead of a call', async () => {
    const { handle, events, pids } = callOnce('malformed', { x: 1 });
    expect((await handle.done).status).toBe('completed');
    expect(results(events)[0]?.result).toMatch(/^Error: the tool's schema cannot be used/);
    expect(await gone(pids())).toBe(true);
  });

  it('a call that does not answer in time is a timeout error the transcript shows; the run goes on', async () => {
    const { handle, events, pids } = callOnce('slow', { ms: 60_000 }, { timeoutMs: 300 });
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    expect(results(events)[0]).toMatchObject({
      isError: true,
      result: 'Error: the tool server "bad" did not answer within 300 ms',
    });
    const tool = ofKind(events, 'message.completed').find((event) => event.payload.message.kind === 'tool');
    expect(tool?.payload.message.content).toContain('did not answer within 300 ms');
    expect(await gone(pids())).toBe(true);
  });

  it('a server that dies mid-call: the agent reads why, its stderr included; with "stop" the run fails', async () => {
    const { handle, events, pids } = callOnce('crash', {}, { stop: true });
    const summary = await handle.done;
    expect(summary.status).toBe('failed');
    expect(summary.detail).toContain('onToolServerError is "stop"');
    const [crash] = results(events);
    expect(crash?.isError).toBe(true);
    expect(crash?.result).toContain('the tool server "bad"');
    expect(crash?.result).toContain('segfault in the frobnicator');
    // The agent never got to say its line: the run stopped after the results were recorded.
    expect(transcript(events)).not.toContain('worker>user: after');
    expect(ofKind(events, 'error').map((event) => event.payload.code)).toContain('tool-server');
    expect(await gone(pids())).toBe(true);
  });

  it('a server that dies mid-call with "continue" (the default): the run goes on', async () => {
    const { handle, events } = callOnce('crash');
    expect((await handle.done).status).toBe('completed');
    expect(results(events)[0]?.isError).toBe(true);
    expect(transcript(events)).toContain('worker>user: after');
  });

  it('a server that fails to start is recorded, and each call of its tools says why', async () => {
    const { handle, events } = callOnce('echo', { text: 'hi' }, { env: { FLEETSCOPE_MCP_FAIL_START: '1' } });
    expect((await handle.done).status).toBe('completed');
    const startError = ofKind(events, 'error')[0]?.payload;
    expect(startError?.code).toBe('tool-server');
    expect(startError?.message).toContain('cannot open the database');
    // `bad/*` never learnt the server's tools, yet a call of one of them is told why.
    expect(results(events)[0]?.result).toContain('the tool server "bad" did not start');
  });

  it('a named tool of a server that fails to start answers with the reason', async () => {
    const { handle, events } = runWithServers({
      fleet: toolFleet(
        { bad: misbehavingServer({ FLEETSCOPE_MCP_FAIL_START: '1' }) },
        ['bad/echo'],
        [call('bad/echo', { text: 'hi' }, 'after')],
      ),
      task: 'Echo',
    });
    expect((await handle.done).status).toBe('completed');
    const [echo] = results(events);
    expect(echo?.isError).toBe(true);
    expect(echo?.result).toContain('the tool server "bad" did not start');
    expect(echo?.result).toContain('cannot open the database');
  });

  it('cancelling during a slow call ends the run at once and the server with its child processes', async () => {
    const { handle, events, pids } = callOnce('slow', { ms: 60_000 }, { env: { FLEETSCOPE_MCP_CHILD: '1' } });
    await new Promise<void>((resolve) =>
      handle.onDidEvent((event) => {
        if (event.kind === 'tool.requested') resolve();
      }),
    );
    handle.stop();
    const summary = await handle.done;
    expect(summary.status).toBe('stopped');
    expect(ofKind(events, 'tool.requested')).toHaveLength(1);
    // The server and the grandchild it started are both gone.
    expect(pids()).toHaveLength(2);
    expect(await gone(pids())).toBe(true);
  });
});
