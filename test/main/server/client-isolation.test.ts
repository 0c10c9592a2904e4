import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Delivered, ServerFrame } from '@shared/contract';
import type { FleetInput, RunEvent } from '@shared/domain';
import { startWebHost } from '../../../src-main/server/web-host';
import { createWsBridge, type SocketLike } from '../../../src-renderer/bridge/ws-bridge';
import type { Bridge, ConnectionState } from '../../../src-renderer/bridge/types';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

/** Two scripted agents that stream slowly for a few turns, so two runs overlap. */
const slowPair: FleetInput = {
  version: 1,
  name: 'Slow pair',
  agents: ['ann', 'bob'].map((name) => ({
    name,
    type: 'scripted' as const,
    loop: true,
    script: [{ content: `${name} says something rather long.`, chunkSize: 4, delayMs: 3 }],
  })),
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 6 },
};

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A real browser bridge on the host, recording what its views would see. */
function connect(running: RunningHost) {
  const { port, token } = running.host;
  const bridge: Bridge = createWsBridge({
    url: `ws://127.0.0.1:${port}/ws?token=${token}`,
    uploadUrl: `http://127.0.0.1:${port}/api/import?token=${token}`,
    createSocket: (url) =>
      new WebSocket(url, { origin: `http://127.0.0.1:${port}` }) as unknown as SocketLike,
    minDelayMs: 20,
    maxDelayMs: 100,
  });
  const received: Delivered[] = [];
  const states: ConnectionState[] = [];
  let resyncs = 0;
  bridge.onDidReceiveEvent((event) => received.push(event));
  bridge.onDidChangeConnection((state) => states.push(state));
  bridge.onDidRequireResync(() => resyncs++);
  const runEvents = () =>
    received.flatMap((event) => (event.channel === 'run.events' ? [event.payload] : []));
  return {
    bridge,
    received,
    states,
    resyncs: () => resyncs,
    runEvents,
    sessionsSeen: () => new Set(runEvents().map((batch) => batch.sessionId)),
    seqsOf: (sessionId: string) =>
      runEvents()
        .filter((batch) => batch.sessionId === sessionId)
        .flatMap((batch) => batch.events.map((event) => event.seq)),
  };
}

async function startRun(bridge: Bridge, task: string): Promise<string> {
  const result = await bridge.call('runs.start', { source: { fleet: slowPair }, task });
  if (!result.ok) throw new Error(result.error.message);
  return result.value.sessionId;
}

function statusEvent(sessionId: string, seq: number): RunEvent {
  return { sessionId, seq, t: seq, agent: null, kind: 'session.status', payload: { status: 'running' } };
}

describe('per-client run events over the web host', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('sends each client the run events of the session it watches and no other, and store changes to all', async () => {
    const running = await startTestHost();
    cleanups.push(() => running.stop());
    const first = connect(running);
    const second = connect(running);
    cleanups.push(
      () => first.bridge.dispose(),
      () => second.bridge.dispose(),
    );
    await until(() => first.bridge.connection === 'online' && second.bridge.connection === 'online');

    const a = await startRun(first.bridge, 'Session A');
    first.bridge.watchSession(a);
    const b = await startRun(second.bridge, 'Session B');
    second.bridge.watchSession(b);

    const stored = async (id: string) => {
      const result = await first.bridge.call('sessions.events', { id, afterSeq: 0 });
      if (!result.ok) throw new Error(result.error.message);
      return result.value;
    };
    await until(() => first.seqsOf(a).length > 0 && second.seqsOf(b).length > 0);
    for (const [client, id] of [
      [first, a],
      [second, b],
    ] as const) {
      await until(() =>
        client.runEvents().some((batch) => batch.events.some((event) => event.kind === 'session.stopped')),
      );
      // From the moment it watched, the client got every event of its session, in order.
      const { lastSeq } = await stored(id);
      const seqs = client.seqsOf(id);
      expect(seqs.at(-1)).toBe(lastSeq);
      expect(seqs).toEqual(seqs.map((_, index) => seqs[0]! + index));
    }

    expect([...first.sessionsSeen()]).toEqual([a]);
    expect([...second.sessionsSeen()]).toEqual([b]);
    for (const client of [first, second]) {
      // The session list learns of both runs from store.changed summaries, whatever a client watches.
      await until(() =>
        client.received.some(
          (event) => event.channel === 'store.changed' && event.payload.topic === 'sessions',
        ),
      );
      expect(client.resyncs()).toBe(0);
      expect(client.states).not.toContain('offline');
    }
  });

  it('sends nothing of a run to a client that watches no session, and stops when a client unwatches', async () => {
    const running = await startTestHost();
    cleanups.push(() => running.stop());
    const watcher = connect(running);
    const bystander = connect(running);
    cleanups.push(
      () => watcher.bridge.dispose(),
      () => bystander.bridge.dispose(),
    );
    await until(() => watcher.bridge.connection === 'online' && bystander.bridge.connection === 'online');

    const long = { ...slowPair, termination: { type: 'max-messages' as const, max: 20 } };
    const started = await watcher.bridge.call('runs.start', { source: { fleet: long }, task: 'Long' });
    if (!started.ok) throw new Error(started.error.message);
    const a = started.value.sessionId;
    const release = watcher.bridge.watchSession(a);
    await until(() => watcher.seqsOf(a).length > 0);
    release();
    // Calls are answered in order, so once this one is back the release has taken effect.
    await watcher.bridge.call('runs.active', {});
    await until(async () => {
      const found = await bystander.bridge.call('sessions.get', { id: a });
      return found.ok && found.value.summary.status === 'completed';
    });
    await until(() =>
      bystander.received.some(
        (event) => event.channel === 'store.changed' && event.payload.topic === 'sessions',
      ),
    );

    expect(bystander.runEvents()).toEqual([]);
    const stopped = (id: string) =>
      watcher
        .runEvents()
        .some((batch) => batch.sessionId === id && batch.events.some((e) => e.kind === 'session.stopped'));
    expect(stopped(a)).toBe(false);
    expect(bystander.resyncs()).toBe(0);
    expect(watcher.resyncs()).toBe(0);
  });

  it('replays what a reconnecting client missed with only the run events of the sessions it watches', async () => {
    const running = await startTestHost();
    cleanups.push(() => running.stop());
    const client = connect(running);
    cleanups.push(() => client.bridge.dispose());
    await until(() => client.bridge.connection === 'online');
    // Both runs' last events have gone through the hub (the store says completed a little before
    // the run service relays the commit that says so), so none of them reach the replay below.
    const stopped = new Set<string>();
    cleanups.push(
      running.app.hub.onDidEmit((event) => {
        if (event.channel !== 'run.events') return;
        if (event.payload.events.some((runEvent) => runEvent.kind === 'session.stopped'))
          stopped.add(event.payload.sessionId);
      }),
    );
    const a = await startRun(client.bridge, 'A');
    const b = await startRun(client.bridge, 'B');
    for (const id of [a, b]) {
      await until(() => running.app.store.getSession(id)?.summary.status === 'completed' && stopped.has(id));
    }
    client.bridge.watchSession(a);
    await client.bridge.call('runs.active', {});

    const { port, token } = running.host;
    await running.host.close();
    await until(() => client.bridge.connection === 'offline');
    const before = client.received.length;
    running.app.hub.emit('run.events', { sessionId: b, events: [statusEvent(b, 1000)] });
    running.app.hub.emit('run.events', { sessionId: a, events: [statusEvent(a, 1000)] });
    running.app.hub.emit('run.events', { sessionId: b, events: [statusEvent(b, 1001)] });
    running.app.hub.emit('ping', { n: 1, at: 1 });
    running.app.hub.emit('run.events', { sessionId: b, events: [statusEvent(b, 1002)] });
    const restarted = await startWebHost({ app: running.app, rendererDir: running.rendererDir, port, token });
    cleanups.push(() => restarted.close());
    await until(() => client.received.slice(before).some((event) => event.channel === 'ping'));

    const replayed = client.received.slice(before);
    const replayedRuns = replayed.flatMap((event) => (event.channel === 'run.events' ? [event.payload] : []));
    expect(new Set(replayedRuns.map((batch) => batch.sessionId))).toEqual(new Set([a]));
    expect(replayedRuns.at(-1)?.events).toEqual([statusEvent(a, 1000)]);
    // b's events after the ping are skipped, not sent, so the ping ends what the hub relayed. The
    // app's store.changed announcements leave on their own 250 ms timer (the runs' last commits
    // may still be announced while the host is down), so one may come after the ping.
    const relayed = replayed.filter((event) => event.channel !== 'store.changed');
    expect(relayed.at(-1)?.channel).toBe('ping');
    expect(client.resyncs()).toBe(0);

    // Live delivery continues after the replay's skipped tail without a gap.
    running.app.hub.emit('run.events', { sessionId: b, events: [statusEvent(b, 1003)] });
    running.app.hub.emit('ping', { n: 2, at: 2 });
    await until(() => client.received.filter((event) => event.channel === 'ping').length === 2);
    expect(client.resyncs()).toBe(0);
    expect(client.sessionsSeen()).toEqual(new Set([a]));
  });
});

describe('the raw socket protocol of per-client events', () => {
  let running: RunningHost;
  afterEach(() => running.stop());

  function open(): Promise<WebSocket> {
    const { port, token } = running.host;
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
        origin: `http://127.0.0.1:${port}`,
      });
      socket.once('open', () => resolve(socket));
      socket.once('error', reject);
    });
  }
  /** Frames until one satisfies `last`. */
  function framesUntil(socket: WebSocket, last: (frame: ServerFrame) => boolean): Promise<ServerFrame[]> {
    return new Promise((resolve) => {
      const frames: ServerFrame[] = [];
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as ServerFrame;
        frames.push(frame);
        if (last(frame)) resolve(frames);
      });
    });
  }

  it('marks each run of skipped seqs with one events.skipped, so the seqs stay contiguous', async () => {
    running = await startTestHost();
    const hub = running.app.hub;
    hub.emit('ping', { n: 0, at: 0 });
    const epoch = hub.epoch;
    hub.emit('run.events', { sessionId: 'b', events: [statusEvent('b', 1)] });
    hub.emit('run.events', { sessionId: 'b', events: [statusEvent('b', 2)] });
    hub.emit('run.events', { sessionId: 'a', events: [statusEvent('a', 1)] });
    hub.emit('ping', { n: 1, at: 1 });
    hub.emit('run.events', { sessionId: 'b', events: [statusEvent('b', 3)] });

    const socket = await open();
    const frames = framesUntil(socket, (frame) => frame.type === 'events');
    socket.send(JSON.stringify({ type: 'hello', epoch, lastSeq: 1, watch: ['a'] }));
    const events = (await frames).flatMap((frame) => (frame.type === 'events' ? frame.events : []));
    expect(events.map(({ seq, channel }) => [seq, channel])).toEqual([
      [3, 'events.skipped'],
      [4, 'run.events'],
      [5, 'ping'],
      [6, 'events.skipped'],
    ]);
    expect(events[0]).toMatchObject({ payload: { fromSeq: 2 } });
    expect(events[3]).toMatchObject({ payload: { fromSeq: 6 } });
    socket.close();
  });

  it.each([
    ['not a list', 'a'],
    ['a list with a number', ['a', 7]],
    ['a list too long', Array.from({ length: 51 }, () => 'a')],
    ['an id too long', ['a'.repeat(201)]],
  ])('watches nothing when the hello asks for %s', async (_label, watch) => {
    running = await startTestHost();
    const hub = running.app.hub;
    hub.emit('run.events', { sessionId: 'a', events: [statusEvent('a', 1)] });
    hub.emit('ping', { n: 1, at: 1 });
    const socket = await open();
    const frames = framesUntil(socket, (frame) => frame.type === 'events');
    socket.send(JSON.stringify({ type: 'hello', epoch: hub.epoch, lastSeq: 0, watch }));
    const events = (await frames).flatMap((frame) => (frame.type === 'events' ? frame.events : []));
    expect(events.map((event) => event.channel)).toEqual(['events.skipped', 'ping']);
    socket.close();
  });
});
