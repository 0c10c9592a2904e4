import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fleet, llm, ofKind, run, scripted, transcript } from '../../helpers/fleet-builders';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';

let stub: OpenAiStub;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  stub.requests.length = 0;
  stub.respondWith(null);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls for a condition; the timeout only bounds how long a failing test takes, not how fast code must be. */
async function until(predicate: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(2);
  }
}

const chatters = (max = 6) =>
  fleet({
    agents: [scripted('a', ['a says hi'], { loop: true }), scripted('b', ['b says hi'], { loop: true })],
    team: { pattern: 'round-robin' },
    termination: { type: 'max-messages', max },
  });

/**
 * A witness for "nothing happened while paused" that does not depend on wall-clock speed: runs an
 * unpaused copy of the fleet until it has completed `messages` more messages, then stops it. A run
 * under test that was not held would have made progress in that time too, however slow the machine.
 */
async function whileAnotherRunCompletes(
  fleetCopy: ReturnType<typeof fleet>,
  messages: number,
): Promise<void> {
  const witness = run({ fleet: fleetCopy, task: 'witness' });
  // The task itself is the first completed message.
  await until(() => transcript(witness.events).length >= 1 + messages);
  witness.handle.stop();
  await witness.handle.done;
}

describe('cancellation', () => {
  it('aborts the in-flight HTTP request promptly and ends stopped/cancelled', async () => {
    stub.enqueue({ type: 'stall', content: 'thinking out loud' });
    const { handle, events } = run({
      fleet: fleet({ agents: [llm('slow', stub.baseUrl)], team: { pattern: 'sequential' } }),
      task: 'go',
      idleTimeoutMs: 10_000,
    });
    await until(() => ofKind(events, 'message.delta').length > 0);
    expect(stub.chatRequests()[0]?.abortedAt).toBeNull();
    const stoppedAt = Date.now();
    handle.stop();
    const summary = await handle.done;
    const doneAfter = Date.now() - stoppedAt;
    // The stub connection was closed by the client before the (never-ending) reply finished.
    await until(() => stub.chatRequests()[0]?.abortedAt !== null);
    // Generous bounds (latency figures live in test/bench/orchestrator.bench.ts): the stalled reply
    // never ends and the idle timeout is 10 s, so these only fail if cancellation waited for either.
    expect((stub.chatRequests()[0]?.abortedAt ?? Infinity) - stoppedAt).toBeLessThan(1_000);
    expect(doneAfter).toBeLessThan(1_000);
    expect(stub.chatRequests()).toHaveLength(1);
    expect(summary).toMatchObject({ status: 'stopped', stopReason: 'cancelled' });
    const partial = ofKind(events, 'message.completed').at(-1)?.payload.message;
    expect(partial).toMatchObject({ from: 'slow', state: 'partial', content: 'thinking out loud' });
    expect(ofKind(events, 'error')).toHaveLength(0);
  });

  it('cancels through the AbortSignal given at start', async () => {
    stub.enqueue({ type: 'stall' });
    const controller = new AbortController();
    const { handle } = run({
      fleet: fleet({ agents: [llm('slow', stub.baseUrl)], team: { pattern: 'sequential' } }),
      task: 'go',
      signal: controller.signal,
      idleTimeoutMs: 10_000,
    });
    await stub.waitForChatRequests(1);
    controller.abort();
    expect((await handle.done).stopReason).toBe('cancelled');
  });

  it('a graceful stop lets the current turn finish and ends with the external reason', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [scripted('a', [{ content: 'slow words here', chunkSize: 2, delayMs: 5 }], { loop: true })],
        team: { pattern: 'round-robin' },
        termination: { type: 'or', conditions: [{ type: 'external' }, { type: 'max-messages', max: 50 }] },
      }),
      task: 'go',
    });
    await until(() => ofKind(events, 'message.delta').length > 0);
    handle.requestStop();
    const summary = await handle.done;
    expect(summary).toMatchObject({ status: 'stopped', stopReason: 'external' });
    expect(ofKind(events, 'message.completed').at(-1)?.payload.message).toMatchObject({
      content: 'slow words here',
      state: 'complete',
    });
  });
});

describe('pause, resume and step', () => {
  it('pause holds the run before the next round until resume', async () => {
    const ticking = (max: number) =>
      fleet({
        agents: [scripted('a', [{ content: 'tick tock', chunkSize: 2, delayMs: 5 }], { loop: true })],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max },
      });
    const { handle, events } = run({ fleet: ticking(8), task: 'go' });
    await until(() => transcript(events).length >= 2);
    handle.pause();
    expect(handle.status).toBe('paused');
    const count = transcript(events).length;
    // The turn in flight when pausing may finish; wait until it has, however long that takes.
    await until(
      () => ofKind(events, 'message.started').length === ofKind(events, 'message.completed').length,
    );
    expect(transcript(events).length).toBeLessThanOrEqual(count + 1);
    const whilePaused = transcript(events).length;
    const startedWhilePaused = ofKind(events, 'message.started').length;
    // An unpaused copy completes three messages meanwhile; the paused run starts none.
    await whileAnotherRunCompletes(ticking(50), 3);
    expect(transcript(events).length).toBe(whilePaused);
    expect(ofKind(events, 'message.started')).toHaveLength(startedWhilePaused);
    expect(handle.status).toBe('paused');
    handle.resume();
    const summary = await handle.done;
    expect(summary.stopReason).toBe('max-messages');
    expect(ofKind(events, 'session.status').map((event) => event.payload.status)).toEqual([
      'paused',
      'running',
    ]);
  });

  it('steps one round at a time from a paused start', async () => {
    const { handle, events } = run({ fleet: chatters(), task: 'go', startPaused: true });
    await until(() => transcript(events).length >= 1);
    // An unpaused copy gets two replies in meanwhile; the paused run gets none.
    await whileAnotherRunCompletes(chatters(50), 2);
    expect(transcript(events)).toEqual(['user>*: go']);
    await handle.step();
    expect(transcript(events)).toEqual(['user>*: go', 'a>*: a says hi']);
    expect(handle.status).toBe('paused');
    await handle.step();
    expect(transcript(events).slice(-1)).toEqual(['b>*: b says hi']);
    handle.resume();
    expect((await handle.done).messageCount).toBe(6);
  });
});

describe('continuing a finished run', () => {
  it('continues with a new task, keeps the history and stops again by its conditions', async () => {
    const { handle, events } = run({ fleet: chatters(3), task: 'first task' });
    const first = await handle.done;
    expect(first.messageCount).toBe(3);
    await expect(run({ fleet: chatters(3), task: 'x' }).handle.continueWith('too early')).rejects.toThrow(
      /not finished/,
    );
    const second = await handle.continueWith('second task', { note: 'be brief' });
    expect(second).toMatchObject({ status: 'completed', stopReason: 'max-messages', messageCount: 6 });
    const continued = ofKind(events, 'session.continued');
    expect(continued[0]?.payload).toEqual({ task: 'second task', context: { note: 'be brief' } });
    const lines = transcript(events);
    expect(lines[3]).toBe('user>*: second task\n\nnote: be brief');
    expect(ofKind(events, 'session.stopped')).toHaveLength(2);
    events.forEach((event, index) => expect(event.seq).toBe(index + 1));
    const secondTask = ofKind(events, 'message.completed')[3]?.payload.message;
    const lastOfFirst = ofKind(events, 'message.completed')[2]?.payload.message;
    expect(secondTask?.threadId).toBe(lastOfFirst?.threadId);
  });
});

describe('human agent', () => {
  it('waits for an answer, then the person speaks in the team', async () => {
    const { handle, events } = run({
      fleet: fleet({
        agents: [scripted('bot', ['Shall I deploy?']), { name: 'me', type: 'human' }],
        team: { pattern: 'sequential' },
      }),
      task: 'deploy',
    });
    await until(() => ofKind(events, 'human.requested').length === 1);
    expect(handle.status).toBe('waiting-for-human');
    const [request] = handle.pendingHumanRequests();
    expect(request).toMatchObject({ agent: 'me', prompt: 'bot: Shall I deploy?' });
    expect(handle.answer('no-such-request', 'x')).toBe(false);
    expect(handle.answer(request!.requestId, 'Yes, go ahead')).toBe(true);
    const summary = await handle.done;
    expect(summary.status).toBe('completed');
    expect(transcript(events).at(-1)).toBe('me>user: Yes, go ahead');
    expect(ofKind(events, 'human.given')[0]?.payload.text).toBe('Yes, go ahead');
    expect(ofKind(events, 'session.status').map((event) => event.payload.status)).toEqual([
      'waiting-for-human',
      'running',
    ]);
  });

  it('a cancelled run stops waiting for the person', async () => {
    const { handle, events } = run({
      fleet: fleet({ agents: [{ name: 'me', type: 'human' }], team: { pattern: 'sequential' } }),
      task: 'hello?',
    });
    await until(() => ofKind(events, 'human.requested').length === 1);
    handle.stop();
    expect((await handle.done).stopReason).toBe('cancelled');
    expect(handle.pendingHumanRequests()).toHaveLength(0);
  });
});

describe('termination in runs', () => {
  it('a timeout cuts a stalled reply short and names the timeout', async () => {
    stub.enqueue({ type: 'stall', content: 'never ending' });
    const started = Date.now();
    const { handle, events } = run({
      fleet: fleet({
        agents: [llm('slow', stub.baseUrl)],
        team: { pattern: 'round-robin' },
        termination: { type: 'timeout', seconds: 0.15 },
      }),
      task: 'go',
      idleTimeoutMs: 10_000,
    });
    const summary = await handle.done;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(summary).toMatchObject({ status: 'completed', stopReason: 'timeout' });
    expect(ofKind(events, 'message.completed').at(-1)?.payload.message.state).toBe('partial');
    await until(() => stub.chatRequests()[0]?.abortedAt !== null);
  });

  it('a token budget stops the run once the provider reports enough usage', async () => {
    stub.respondWith(() => ({ type: 'text', content: 'words', usage: { prompt: 30, completion: 20 } }));
    const { handle } = run({
      fleet: fleet({
        agents: [llm('a', stub.baseUrl), llm('b', stub.baseUrl)],
        team: { pattern: 'round-robin' },
        termination: { type: 'token-budget', maxTokens: 120 },
      }),
      task: 'go',
    });
    const summary = await handle.done;
    expect(summary.stopReason).toBe('token-budget');
    expect(stub.chatRequests()).toHaveLength(3);
    expect(summary.tokens.total).toBe(150);
  });

  it('a stop message ends the run', async () => {
    const { handle } = run({
      fleet: fleet({
        agents: [scripted('a', ['working', { content: 'all done', kind: 'stop' }])],
        team: { pattern: 'round-robin' },
        termination: { type: 'stop-message' },
      }),
      task: 'go',
    });
    expect(await handle.done).toMatchObject({ stopReason: 'stop-message', messageCount: 3 });
  });

  it('a fleet without termination runs under the default cap and warns about it', async () => {
    const { handle, events } = run({
      fleet: fleet({ agents: [scripted('a', ['again'], { loop: true })], team: { pattern: 'round-robin' } }),
      task: 'go',
    });
    expect(handle.warnings.join()).toContain('stops after 50 messages');
    const summary = await handle.done;
    expect(summary).toMatchObject({ stopReason: 'max-messages', messageCount: 50 });
    const checks = ofKind(events, 'termination.check');
    expect(checks).toHaveLength(50);
    expect(checks.at(-1)?.payload).toMatchObject({ condition: 'max-messages', fired: true });
  });
});
