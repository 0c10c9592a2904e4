import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySink, startRun } from '../../src-main/orchestrator';
import { fleet, llm, ofKind, run } from '../helpers/fleet-builders';
import { startOpenAiStub, type ChatBody, type OpenAiStub } from '../helpers/openai-stub';

/**
 * Orchestrator overhead per turn: a 4-agent round robin of 1,000 turns against the local stub,
 * next to a bare `openai` SDK loop sending the very same 1,000 request bodies (replayed from the
 * stub's log), in the same process. Prints both and the ratio; no timed assertions.
 */
const TURNS = 1_000;

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
  stub.respondWith(() => ({ type: 'text', content: 'A short reply of a few tokens.', chunkSize: 8 }));
});
afterAll(() => stub.close());

async function runOrchestrator(): Promise<{ ms: number; bodies: ChatBody[] }> {
  stub.requests.length = 0;
  const team = fleet({
    agents: ['ann', 'ben', 'cat', 'dan'].map((name) => llm(name, stub.baseUrl)),
    team: { pattern: 'round-robin' },
    // The task is a message too: 1 + TURNS messages.
    termination: { type: 'max-messages', max: TURNS + 1 },
  });
  const started = performance.now();
  const handle = startRun({
    fleet: team,
    task: 'Talk among yourselves.',
    sink: new MemorySink(),
    env: {},
    maxRetries: 0,
  });
  const summary = await handle.done;
  const ms = performance.now() - started;
  expect(summary.stopReason).toBe('max-messages');
  const bodies = stub.chatRequests().map((request) => request.body as ChatBody);
  expect(bodies).toHaveLength(TURNS);
  return { ms, bodies };
}

async function runBareLoop(bodies: readonly ChatBody[]): Promise<number> {
  const client = new OpenAI({ baseURL: stub.baseUrl, apiKey: 'bench', maxRetries: 0, logLevel: 'off' });
  const started = performance.now();
  let characters = 0;
  for (const body of bodies) {
    const stream = await client.chat.completions.create({
      ...(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming),
      stream: true,
    });
    for await (const chunk of stream) characters += chunk.choices[0]?.delta?.content?.length ?? 0;
  }
  const ms = performance.now() - started;
  expect(characters).toBeGreaterThan(0);
  return ms;
}

describe('orchestrator overhead', () => {
  it(`4-agent round robin, ${TURNS} turns vs a bare openai SDK loop`, async () => {
    await runOrchestrator(); // warm-up: JIT, connection pool
    const orchestrator = await runOrchestrator();
    const bare = await runBareLoop(orchestrator.bodies);
    const perTurn = (orchestrator.ms - bare) / TURNS;
    console.log(
      [
        `orchestrator: ${orchestrator.ms.toFixed(0)} ms for ${TURNS} turns (${(orchestrator.ms / TURNS).toFixed(2)} ms/turn)`,
        `bare openai SDK loop, same ${TURNS} requests: ${bare.toFixed(0)} ms (${(bare / TURNS).toFixed(2)} ms/request)`,
        `ratio orchestrator / bare: ${(orchestrator.ms / bare).toFixed(2)}x; overhead ${perTurn.toFixed(2)} ms/turn`,
      ].join('\n'),
    );
  });
});

/**
 * Cancel latency: a one-agent run waits on a stalled stub reply (first text already streamed),
 * then `stop()`. Times stop() -> the run's `done` settling and stop() -> the stub seeing the HTTP
 * connection closed, over CANCEL_RUNS runs. Prints p50/p95; no timed assertions (the tests in
 * test/main/orchestrator/run-control.test.ts only check cancellation does not wait for the reply).
 */
const CANCEL_RUNS = 50;

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('cancel latency', () => {
  it(`stop() while a provider request is in flight, ${CANCEL_RUNS} runs`, async () => {
    const toDone: number[] = [];
    const toAbort: number[] = [];
    for (let index = 0; index < CANCEL_RUNS; index += 1) {
      stub.requests.length = 0;
      stub.enqueue({ type: 'stall', content: 'thinking out loud' });
      const { handle, events } = run({
        fleet: fleet({ agents: [llm('slow', stub.baseUrl)], team: { pattern: 'sequential' } }),
        task: 'go',
        idleTimeoutMs: 60_000,
        maxRetries: 0,
      });
      await until(() => ofKind(events, 'message.delta').length > 0);
      const stoppedAt = performance.now();
      const stoppedAtEpoch = Date.now();
      handle.stop();
      const summary = await handle.done;
      toDone.push(performance.now() - stoppedAt);
      expect(summary.stopReason).toBe('cancelled');
      await until(() => (stub.chatRequests()[0]?.abortedAt ?? null) !== null);
      // The stub stamps with Date.now(), so this one is in whole milliseconds.
      toAbort.push((stub.chatRequests()[0]?.abortedAt ?? NaN) - stoppedAtEpoch);
    }
    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    console.log(
      [
        `cancel latency over ${CANCEL_RUNS} runs (the old test bound was 50 ms):`,
        `  stop() -> run done: p50 ${f(percentile(toDone, 50))}, p95 ${f(percentile(toDone, 95))}, max ${f(Math.max(...toDone))}`,
        `  stop() -> stub sees the request aborted: p50 ${f(percentile(toAbort, 50))}, p95 ${f(percentile(toAbort, 95))}, max ${f(Math.max(...toAbort))}`,
      ].join('\n'),
    );
  });
});
