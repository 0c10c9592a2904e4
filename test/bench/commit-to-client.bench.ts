import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame } from '@shared/contract';
import type { FleetInput } from '@shared/domain';
import { callChecked } from '../helpers/checked-dispatch';
import { startTestHost, type RunningHost } from '../helpers/web-host';
import { BenchReport, benchReps, median, percentile } from './harness';

/**
 * Commit to client: how long a run's event takes from its store commit (the moment the runtime
 * shows it, which is when the store says it is durable) to the WebSocket frame that carries it
 * reaching a browser client (the `ws` client in this process, watching the session). The baseline
 * in the same run, over the same events, is commit to `run.events` on the app's event hub, before
 * any transport: the difference is what the transport's per-frame batching adds. Measured to the
 * frame's receipt, not to the page's paint (no browser: the page's own rAF adds at most a frame on
 * top). Each repetition is one run of two scripted agents streaming text in 5-character chunks
 * every 20 ms; a figure is the median (and p95) over the events of a repetition. Printed and
 * written as JSON, never asserted on time.
 */
const REPS = benchReps(5);
const CONTENT = 'Streaming text in small chunks, so commits come often. '.repeat(6);
const CLI = { surface: 'cli' } as const;

const fleet: FleetInput = {
  version: 1,
  name: 'Bench: commit to client',
  agents: ['ada', 'bob'].map((name) => ({
    name,
    type: 'scripted' as const,
    script: [{ content: CONTENT, chunkSize: 5, delayMs: 20 }],
  })),
  team: { pattern: 'round-robin', order: ['ada', 'bob'] },
  termination: { type: 'max-messages', max: 4 },
};

interface RepFigures {
  hubMedian: number;
  hubP95: number;
  clientMedian: number;
  clientP95: number;
  events: number;
}

describe('commit to client', () => {
  let running: RunningHost;
  let socket: WebSocket;
  const report = new BenchReport(
    'commit-to-client',
    'A run event from its store commit to a WebSocket client',
    {
      reps: REPS,
      chunk: '5 characters every 20 ms, two scripted agents, 4 messages',
    },
  );

  beforeAll(async () => {
    running = await startTestHost();
    const { port, token } = running.host;
    socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
      origin: `http://127.0.0.1:${port}`,
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'hello', epoch: null, lastSeq: 0 }));
  });

  afterAll(async () => {
    report.finish();
    socket?.close();
    await running?.stop();
  });

  /** One run: per event, milliseconds from its commit to the hub and to the client's frame. */
  async function oneRun(): Promise<RepFigures> {
    const { app } = running;
    const committed = new Map<string, number>();
    const toHub: number[] = [];
    const toClient: number[] = [];
    const key = (sessionId: string, seq: number) => `${sessionId}:${seq}`;
    const stopCommits = app.runs.onDidEvent((event) =>
      committed.set(key(event.sessionId, event.seq), performance.now()),
    );
    const stopHub = app.hub.onDidEmit((delivered) => {
      if (delivered.channel !== 'run.events') return;
      const now = performance.now();
      for (const event of delivered.payload.events) {
        const at = committed.get(key(event.sessionId, event.seq));
        if (at !== undefined) toHub.push(now - at);
      }
    });
    const onFrame = (data: WebSocket.RawData) => {
      const now = performance.now();
      const frame = JSON.parse(String(data)) as ServerFrame;
      if (frame.type !== 'events') return;
      for (const delivered of frame.events) {
        if (delivered.channel !== 'run.events') continue;
        for (const event of delivered.payload.events) {
          const at = committed.get(key(event.sessionId, event.seq));
          if (at !== undefined) toClient.push(now - at);
        }
      }
    };
    socket.on('message', onFrame);
    try {
      const { sessionId } = await callChecked(
        app.dispatcher,
        'runs.start',
        { source: { fleet }, task: 'Stream' },
        CLI,
      );
      socket.send(
        JSON.stringify({ type: 'call', id: 1, channel: 'sessions.watch', payload: { ids: [sessionId] } }),
      );
      const handle = app.runs.handle(sessionId);
      await handle?.done;
      // The last frames leave within a frame or two of the end.
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      socket.off('message', onFrame);
      stopHub();
      stopCommits();
    }
    return {
      hubMedian: median(toHub),
      hubP95: percentile(toHub, 0.95),
      clientMedian: median(toClient),
      clientP95: percentile(toClient, 0.95),
      events: toClient.length,
    };
  }

  it('measures commit to hub and commit to client frame', async () => {
    const reps: RepFigures[] = [];
    await oneRun(); // warm-up: first run pays for module loading and statement preparation
    for (let rep = 0; rep < REPS; rep += 1) reps.push(await oneRun());
    expect(reps.every((rep) => rep.events > 20)).toBe(true);
    report.context.eventsPerRun = reps.map((rep) => rep.events);
    report.add({
      id: 'commit-to-client-median',
      label: 'commit to client frame, median per run',
      unit: 'ms',
      values: reps.map((rep) => rep.clientMedian),
      baseline: { label: 'commit to hub', values: reps.map((rep) => rep.hubMedian) },
      goal: { kind: 'info', text: 'one batcher between a commit and a client (issue 21)' },
    });
    report.add({
      id: 'commit-to-client-p95',
      label: 'commit to client frame, p95 per run',
      unit: 'ms',
      values: reps.map((rep) => rep.clientP95),
      baseline: { label: 'commit to hub', values: reps.map((rep) => rep.hubP95) },
      note: 'to the WebSocket frame receipt in the same process, not to paint',
    });
  });
});
