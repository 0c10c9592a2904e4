import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { foldEvents, isLiveStatus, type RunEvent } from '@shared/domain';
import { ensureBuilt, launchBrowser, spawnHost, type HostProcess } from '../helpers/browser';
import { makeTempDir } from '../helpers/temp-dir';
import { callHost, openApp, shot } from './session-helpers';
import {
  waitForSamples,
  openSession,
  readGraph,
  readLanes,
  readTranscript,
  seekTo,
  showLens,
  type ListedSession,
} from './lanes-helpers';

const TOKEN = 'e2e-agreement-token-0123456789abcdef012345';
const POSITIONS = 20;
/** Three of the sample sessions seeded on first launch. */
const SESSIONS = ['Code review pipeline', 'Debate', 'Support swarm'];

/** Deterministic positions, so a failure can be replayed. */
function randomSeqs(lastSeq: number, count: number, seed: number): number[] {
  let state = seed;
  const next = () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
  return Array.from({ length: count }, () => Math.floor(next() * (lastSeq + 1)));
}

interface Seen {
  graph: Record<string, string>;
  lanes: Record<string, string>;
  transcript: { seq: number; lastMessage: string; lastMessageState: string };
  lanesMessage: { lastMessage: string; lastMessageState: string };
}

/**
 * Graph, lanes and transcript of the same session agree at 20 random playhead positions, visited
 * in two different orders (so some positions are reached by stepping back), and agree with the
 * fold of the stored event log computed here, outside the app.
 */
describe('graph, lanes and transcript agree at any playhead (Chromium)', () => {
  const temp = makeTempDir();
  let host: HostProcess;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let samples: ListedSession[];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    host = await spawnHost(join(temp.dir, 'data'), { token: TOKEN });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await openApp(page, host.url);
    samples = await waitForSamples(host.port, TOKEN, SESSIONS);
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    temp.remove();
  });

  for (const [index, fleetName] of SESSIONS.entries())
    it(`agrees on ${fleetName} at ${POSITIONS} random positions`, { timeout: 120_000 }, async () => {
      const session = samples.find((candidate) => candidate.fleetName === fleetName);
      expect(session, `sample of ${fleetName}`).toBeDefined();
      const id = session!.id;
      const { events } = await callHost<{ events: RunEvent[] }>(host.port, TOKEN, 'sessions.events', {
        id,
        afterSeq: 0,
        limit: 20_000,
      });
      const lastSeq = events.length;
      const positions = randomSeqs(lastSeq, POSITIONS, 1_000 + index);
      const seen = new Map<number, Partial<Seen>>();
      const at = (seq: number) => seen.get(seq) ?? (seen.set(seq, {}), seen.get(seq)!);

      await openSession(page, id);
      await showLens(page, 'graph');
      for (const seq of positions) {
        await seekTo(page, seq);
        at(seq).graph = await readGraph(page);
        at(seq).transcript = await readTranscript(page);
      }
      await shot(page, `agreement-${fleetName.toLowerCase().replace(/\s+/g, '-')}-graph.png`);
      // The lanes visit the same positions in the opposite order: each is reached from the other side.
      await showLens(page, 'lanes');
      for (const seq of [...positions].reverse()) {
        await seekTo(page, seq);
        const lanes = await readLanes(page);
        expect(lanes.seq).toBe(seq);
        at(seq).lanes = lanes.statuses;
        at(seq).lanesMessage = lanes;
        const transcript = await readTranscript(page);
        expect(transcript, `transcript at ${seq}, reached the other way`).toEqual(at(seq).transcript);
      }
      await shot(page, `agreement-${fleetName.toLowerCase().replace(/\s+/g, '-')}-lanes.png`);

      for (const [seq, view] of seen) {
        const truth = foldEvents(events.slice(0, seq));
        const newest = truth.order[truth.order.length - 1];
        expect(view.transcript?.seq).toBe(seq);
        expect(view.transcript?.lastMessage, `newest message at ${seq}`).toBe(newest ?? '');
        expect(view.transcript?.lastMessageState).toBe(newest ? truth.messages[newest]!.state : '');
        expect(view.lanesMessage?.lastMessage, `lanes' newest message at ${seq}`).toBe(newest ?? '');
        expect(view.lanesMessage?.lastMessageState).toBe(view.transcript?.lastMessageState);
        const graph = view.graph ?? {};
        const lanes = view.lanes ?? {};
        const finished = truth.status !== null && !isLiveStatus(truth.status);
        for (const [agent, status] of Object.entries(truth.agents)) {
          // The graph may draw an idle agent that took part in a finished session as done.
          const drawn = finished && status === 'idle' ? ['idle', 'done'] : [status];
          expect(drawn, `graph: ${agent} at ${seq}`).toContain(graph[agent]);
          expect(drawn, `lanes: ${agent} at ${seq}`).toContain(lanes[agent]);
        }
        for (const agent of Object.keys(graph))
          if (agent in lanes) expect(lanes[agent], `${agent} at ${seq}`).toBe(graph[agent]);
        // Nobody is drawn streaming unless a message of theirs is streaming at that seq (or about
        // to: the status comes one event before the message starts).
        for (const [agent, status] of Object.entries(lanes)) {
          if (status !== 'streaming') continue;
          const streams = truth.order.some(
            (messageId) =>
              truth.messages[messageId]?.from === agent && truth.messages[messageId]?.state === 'streaming',
          );
          const next = events[seq];
          const starting = next?.kind === 'message.started' && next.payload.from === agent;
          expect(streams || starting, `${agent} streaming at ${seq}`).toBe(true);
        }
      }
    });

  it('steps back message by message with the three views agreeing', async () => {
    const session = samples.find((candidate) => candidate.fleetName === 'Debate')!;
    const { events } = await callHost<{ events: RunEvent[] }>(host.port, TOKEN, 'sessions.events', {
      id: session.id,
      afterSeq: 0,
      limit: 20_000,
    });
    await openSession(page, session.id);
    await showLens(page, 'lanes');
    await page.keyboard.press('End');
    for (let step = 0; step < 6; step++) {
      await page.keyboard.press('ArrowLeft');
      const lanes = await readLanes(page);
      const transcript = await readTranscript(page);
      expect(transcript.seq).toBe(lanes.seq);
      const truth = foldEvents(events.slice(0, lanes.seq));
      for (const [agent, status] of Object.entries(truth.agents))
        expect(status === 'idle' ? ['idle', 'done'] : [status]).toContain(lanes.statuses[agent]);
      expect(lanes.lastMessage).toBe(transcript.lastMessage);
      expect(lanes.lastMessageState).toBe('complete');
      // Stepping lands on a completed message: its sender is no longer drawn streaming.
      const sender = events[lanes.seq - 1];
      if (sender?.kind === 'message.completed')
        expect(lanes.statuses[sender.payload.message.from] ?? 'idle').not.toBe('streaming');
    }
  });

  it('logged no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
