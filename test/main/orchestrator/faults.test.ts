import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fleet, llm, ofKind, run } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub, type StubReply } from '../../helpers/openai-stub';

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.respondWith(null);
});

const pair = () =>
  fleet({
    agents: [llm('first', stub.baseUrl), llm('second', stub.baseUrl)],
    team: { pattern: 'round-robin' },
    termination: { type: 'max-messages', max: 3 },
  });

describe('provider faults', () => {
  it('retries 429 and 5xx before streaming and the run still completes', async () => {
    stub.enqueue(
      { type: 'error', status: 429 },
      { type: 'error', status: 502 },
      { type: 'text', content: 'one' },
    );
    const { handle } = run({ fleet: pair(), task: 'go', maxRetries: 2 });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'max-messages' });
    expect(stub.chatRequests()).toHaveLength(4);
  });

  it('fails the run with a readable reason when 5xx persists', async () => {
    stub.respondWith(() => ({ type: 'error', status: 500 }));
    const { handle, events } = run({ fleet: pair(), task: 'go', maxRetries: 1 });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(summary.detail).toContain('first: provider "custom" had a server error (500)');
    expect(ofKind(events, 'error')[0]?.payload.code).toBe('server-error');
    expect(ofKind(events, 'session.stopped')[0]?.payload).toMatchObject({
      status: 'failed',
      stopReason: 'error',
    });
    expect(stub.chatRequests()).toHaveLength(2);
  });

  // Only the stall waits out the idle timeout; the others get one long enough that a starved
  // event loop (a loaded machine) cannot mistake their broken stream for a stall.
  const midStream: Array<[string, StubReply, string, RegExp, number]> = [
    ['a stall', { type: 'stall', content: 'I was saying' }, 'stalled', /stopped sending data for 0.2 s/, 200],
    [
      'a disconnect',
      { type: 'disconnect', content: 'I was saying' },
      'disconnected',
      /broke mid-reply/,
      30_000,
    ],
    [
      'malformed SSE',
      { type: 'malformed', content: 'I was saying' },
      'malformed-stream',
      /not valid JSON/,
      30_000,
    ],
  ];

  it.each(midStream)(
    'keeps the message as partial after %s and stops with error',
    async (_name, reply, code, sentence, idleTimeoutMs) => {
      stub.enqueue(reply);
      const { handle, events } = run({ fleet: pair(), task: 'go', idleTimeoutMs });
      const summary = await handle.done;
      expect(summary).toMatchObject({ status: 'failed', stopReason: 'error' });
      expect(summary.detail).toMatch(sentence);
      const partial = ofKind(events, 'message.completed').find(
        (event) => event.payload.message.from === 'first',
      );
      expect(partial?.payload.message).toMatchObject({ state: 'partial', content: 'I was saying' });
      const [error] = ofKind(events, 'error');
      expect(error?.payload).toMatchObject({ code, messageId: partial?.payload.message.id });
      expect(error?.agent).toBe('first');
      expect(ofKind(events, 'agent.status').at(-1)?.payload.status).toBe('error');
      expect(events.at(-1)?.kind).toBe('session.stopped');
    },
  );

  it('names a missing API key variable and never calls the provider', async () => {
    const withKey = fleet({
      agents: [
        {
          name: 'gpt',
          provider: { id: 'openai', baseUrl: stub.baseUrl, model: 'm', apiKeyEnv: 'FLEETSCOPE_TEST_KEY' },
        },
      ],
      team: { pattern: 'sequential' },
    });
    const { handle, events } = run({ fleet: withKey, task: 'go', env: {} });
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(summary.detail).toContain('FLEETSCOPE_TEST_KEY is not set');
    expect(ofKind(events, 'error')[0]?.payload.code).toBe('missing-api-key');
    expect(stub.chatRequests()).toHaveLength(0);
  });

  it('never writes the API key into an event', async () => {
    const key = 'sk-live-VERY-SECRET-42';
    stub.respondWith(() => ({ type: 'error', status: 401, message: `Incorrect API key provided: ${key}` }));
    const withKey = fleet({
      agents: [
        {
          name: 'gpt',
          provider: { id: 'openai', baseUrl: stub.baseUrl, model: 'm', apiKeyEnv: 'FLEETSCOPE_TEST_KEY' },
        },
      ],
      team: { pattern: 'sequential' },
    });
    const { handle, events } = run({ fleet: withKey, task: 'go', env: { FLEETSCOPE_TEST_KEY: key } });
    const summary = await handle.done;
    expect(stub.chatRequests()[0]?.headers.authorization).toBe(`Bearer ${key}`);
    expect(summary.detail).toContain('rejected the API key');
    expect(JSON.stringify(events)).not.toContain(key);
    expect(JSON.stringify(summary)).not.toContain(key);
  });
});
