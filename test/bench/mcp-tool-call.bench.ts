import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { fleet, run, scripted } from '../helpers/fleet-builders';
import { misbehavingServer } from '../helpers/mcp-servers';
import { BenchReport, benchReps, benchSize, median } from './harness';

/**
 * One MCP tool call through a Fleetscope run against the same call made with the SDK's client,
 * in the same run: each call is timed from its `tool.requested` event to its `tool.executed`
 * event (listeners see them synchronously with a memory sink), and inside it the SDK's own
 * `Client.callTool` is timed (a timing wrapper around the SDK method, its behaviour unchanged).
 * The difference is what Fleetscope adds: tool lookup, JSON parse, argument validation, the
 * approval check, result conversion and recording. The server is the test's own stdio server,
 * whose `echo` answers at once. The first calls of each repetition warm up and are not counted.
 */
const REPS = benchReps(5);
const CALLS = benchSize('FLEETSCOPE_BENCH_MCP_CALLS', 200);
const WARMUP = 10;

/** Durations of `Client.callTool` in order, while `recording` is on. */
const sdkTimes: number[] = [];
const originalCallTool = Client.prototype.callTool;
Client.prototype.callTool = async function timedCallTool(
  this: Client,
  ...args: Parameters<Client['callTool']>
) {
  const start = performance.now();
  try {
    return await originalCallTool.apply(this, args);
  } finally {
    sdkTimes.push(performance.now() - start);
  }
};

async function oneRun(): Promise<{ run: number; sdk: number; extra: number }> {
  const started = new Map<string, number>();
  const took: number[] = [];
  sdkTimes.length = 0;
  const { handle } = run({
    fleet: fleet({
      mcpServers: { bad: misbehavingServer() },
      agents: [
        scripted(
          'worker',
          [{ content: '', toolCalls: [{ name: 'bad/echo', arguments: { text: 'ping' } }] }],
          {
            tools: ['bad/echo'],
            loop: true,
          },
        ),
      ],
      team: { pattern: 'round-robin' },
      termination: { type: 'max-messages', max: 2 * (CALLS + WARMUP), countToolEvents: true },
    }),
    task: 'Echo',
  });
  handle.onDidEvent((event) => {
    if (event.kind === 'tool.requested') started.set(event.payload.callId, performance.now());
    if (event.kind === 'tool.executed') {
      const start = started.get(event.payload.callId);
      if (start !== undefined) took.push(performance.now() - start);
    }
  });
  const summary = await handle.done;
  expect(summary.status).toBe('completed');
  expect(took.length).toBe(sdkTimes.length);
  const counted = took.slice(WARMUP);
  const sdk = sdkTimes.slice(WARMUP);
  return {
    run: median(counted),
    sdk: median(sdk),
    extra: median(counted.map((value, index) => value - (sdk[index] ?? 0))),
  };
}

describe('MCP tool call overhead', () => {
  const report = new BenchReport(
    'mcp-tool-call',
    'One MCP tool call in a run: the whole path vs its SDK call',
    {
      reps: REPS,
      callsPerRep: CALLS,
      server: 'test/helpers/mcp-misbehaving-server.mjs echo over stdio',
    },
  );
  afterAll(() => report.finish());

  it('measures the extra a run adds per call', async () => {
    const reps: Array<{ run: number; sdk: number; extra: number }> = [];
    for (let rep = 0; rep < REPS; rep += 1) reps.push(await oneRun());
    Client.prototype.callTool = originalCallTool;
    report.add({
      id: 'mcp-call-median',
      label: `tool call through a run, median of ${CALLS}`,
      unit: 'ms',
      values: reps.map((rep) => rep.run),
      baseline: { label: 'its SDK client.callTool', values: reps.map((rep) => rep.sdk) },
      goal: { kind: 'info', text: 'context for the extra below' },
    });
    report.add({
      id: 'mcp-call-extra',
      label: 'extra per call (run minus its SDK call), median',
      unit: 'ms',
      values: reps.map((rep) => rep.extra),
      goal: { kind: 'value', max: 1, text: 'under 1 ms per call (issue 24)' },
    });
  }, 300_000);
});
