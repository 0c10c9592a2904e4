import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySink, startRun } from '../../src-main/orchestrator';
import { fleet, llm } from '../helpers/fleet-builders';
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
