import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { effectScope, ref, watch } from 'vue';
import type { ChannelName, StoredMessage } from '@shared/contract';
import { compactInPlace, foldEvents, type RunEvent } from '@shared/domain';
import type { Bridge } from '../../src-renderer/bridge';
import { setBridge } from '../../src-renderer/bridge/current';
import { usePlayer } from '../../src-renderer/session/usePlayer';
import { useTurnPicker } from '../../src-renderer/session-view/useTurnPicker';
import { useSessionStore } from '../../src-renderer/session/session-store';
import { FULL_LOG_LIMIT } from '../../src-renderer/session/session-log-store';
import { createFakeBridge } from '../helpers/fake-bridge';
import { EventLog, sessionListItem, threeAgents } from './session-fixture';

/** Five events a message: a session well past the size the renderer holds whole. */
const MESSAGES = 4_000;
const AGENTS = ['planner', 'writer', 'critic'];

function longLog(): EventLog {
  const log = new EventLog().start();
  for (let i = 0; i < MESSAGES; i++)
    log.say(`m${i}`, AGENTS[i % 3] as string, AGENTS[(i + 1) % 3] as string, [`text ${i}`]);
  return log;
}

function storedLog(): RunEvent[] {
  return longLog().stop().events;
}

/** The store's answers, computed the way the HistoryStore does, counting the events handed out. */
function backend(stored: RunEvent[]) {
  const summary = sessionListItem('s1', { title: 'Long', messageCount: MESSAGES });
  const messages: StoredMessage[] = stored.flatMap((event) =>
    event.kind === 'message.completed'
      ? [{ ...event.payload.message, seq: event.seq, droppedReason: null }]
      : [],
  );
  const served = { events: 0 };
  const fake = createFakeBridge((channel: ChannelName, input: unknown) => {
    switch (channel) {
      case 'sessions.get':
        return { ok: true, value: { summary, fleet: threeAgents } };
      case 'sessions.seek': {
        const { seq } = input as { seq: number };
        const view = foldEvents(stored.filter((event) => event.seq <= seq));
        compactInPlace(view);
        return { ok: true, value: view };
      }
      case 'sessions.messages': {
        const query = input as {
          before?: { seq: number };
          after?: { seq: number };
          from?: 'end';
          limit?: number;
        };
        const limit = query.limit ?? 100;
        if (query.after) {
          const after = messages.filter((message) => message.seq > query.after!.seq);
          return { ok: true, value: { items: after.slice(0, limit), hasBefore: true, hasAfter: false } };
        }
        const upTo = messages.filter((message) => message.seq < (query.before?.seq ?? Infinity));
        return {
          ok: true,
          value: { items: upTo.slice(-limit), hasBefore: upTo.length > limit, hasAfter: false },
        };
      }
      case 'sessions.events': {
        const { afterSeq, limit } = input as { afterSeq: number; limit?: number };
        const events = stored.filter((event) => event.seq > afterSeq).slice(0, limit ?? 20_000);
        served.events += events.length;
        return { ok: true, value: { events, lastSeq: stored.length } };
      }
      case 'sessions.edges': {
        const { seq } = input as { seq?: number };
        return { ok: true, value: { seq: seq ?? stored.length, agents: [], edges: [] } };
      }
      case 'sessions.turns': {
        const {
          agent,
          aroundSeq = 0,
          limit = 200,
        } = input as { agent?: string; aroundSeq?: number; limit?: number };
        const agents = AGENTS.map((name) => ({
          name,
          count: messages.filter((m) => m.from === name).length,
        }));
        const mine = agent ? messages.filter((m) => m.from === agent).map((m) => m.seq) : [];
        const at = Math.max(0, mine.findIndex((seq) => seq > aroundSeq) - Math.ceil(limit / 2));
        return {
          ok: true,
          value: { agents, agent: agent ?? null, firstIndex: at, seqs: mine.slice(at, at + limit) },
        };
      }
      default:
        return { ok: false, error: { code: 'unknown-channel', message: channel } };
    }
  });
  return { ...fake, served };
}

const nextFrames = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a session too long to hold: replay in windows around the playhead', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('steps, plays and jumps by turn without ever reading the whole log', async () => {
    const stored = storedLog();
    expect(stored.length).toBeGreaterThan(FULL_LOG_LIMIT);
    const fake = backend(stored);
    setBridge(fake.bridge);
    const store = useSessionStore();
    const scope = effectScope();
    const turnAgent = ref('');
    const { player, picker } = scope.run(() => ({ player: usePlayer(), picker: useTurnPicker(turnAgent) }))!;

    await store.open('s1');
    expect(store.windowed).toBe(true);
    expect(store.loading).toBe(false);
    expect(store.display?.seq).toBe(stored.length);
    expect(store.display?.lastSeq).toBe(stored.length);
    // Behind the first draw: a window just before the end, not the log.
    await flushPromises();
    expect(fake.served.events).toBeGreaterThan(0);
    expect(fake.served.events).toBeLessThanOrEqual(1_000);
    expect(store.display?.seq).toBe(stored.length);

    // Step back one message: at once, from that window.
    const lastCompletion = stored.findLast((event) => event.kind === 'message.completed')!.seq;
    player.stepMessage(-1);
    expect(store.playhead).toBe(lastCompletion);
    expect(store.display?.seq).toBe(lastCompletion);

    // Play from the start: the start needs no round trip; its events are read and played.
    player.home();
    expect(store.display?.seq).toBe(0);
    await flushPromises();
    player.play();
    await nextFrames(300);
    player.pause();
    expect(store.playhead).toBeGreaterThan(0);
    expect(store.display?.seq).toBe(store.playhead);
    const playedTo = store.playhead;
    expect(store.display?.counters.messages).toBe(foldEvents(stored.slice(0, playedTo)).counters.messages);

    // Step forward by message from there, as the log says.
    const nextCompletion = stored.find(
      (event) => event.kind === 'message.completed' && event.seq > playedTo,
    )!.seq;
    player.stepMessage(1);
    await flushPromises();
    expect(store.display?.seq).toBe(nextCompletion);

    // The turn picker lists an agent's turns from the store and jumps to one far away.
    turnAgent.value = 'writer';
    await flushPromises();
    expect(picker.agents.value.map((agent) => agent.name).sort()).toEqual([...AGENTS].sort());
    expect(picker.turns.value.length).toBeGreaterThan(2);
    const far = stored.length - 100;
    store.seek(far);
    await flushPromises();
    expect(store.display?.seq).toBe(far);
    turnAgent.value = '';
    await flushPromises();
    turnAgent.value = 'critic';
    await flushPromises();
    const turn = picker.turns.value[2]!;
    expect(turn.number).toBeGreaterThan(1000);
    player.seekTo(turn.seq);
    await flushPromises();
    expect(store.display?.seq).toBe(turn.seq);
    const log = store.getLog();
    const shown = log.entries[store.display!.visibleCount - 1];
    expect(shown?.from).toBe('critic');

    // A drag across the log: seeks outside the window settle on the last one.
    for (const seq of [3_000, 9_000, 15_000, 6_001]) store.seek(seq);
    await flushPromises();
    expect(store.display?.seq).toBe(6_001);
    expect(store.display?.counters.messages).toBe(foldEvents(stored.slice(0, 6_001)).counters.messages);

    // Never the whole log: at most a few windows were read, and nothing went into the full timeline.
    expect(fake.served.events).toBeLessThan(stored.length / 2);
    expect(store.getTimeline().lastSeq).toBe(0);
    scope.stop();
  });

  it('draws a seek outside the window once: reading events after the playhead redraws nothing', async () => {
    const stored = storedLog();
    const fake = backend(stored);
    setBridge(fake.bridge);
    const store = useSessionStore();
    await store.open('s1');
    await flushPromises();
    const scope = effectScope();
    const published: number[] = [];
    scope.run(() =>
      watch(
        () => store.display,
        (display) => published.push(display?.seq ?? -1),
      ),
    );

    const served = fake.served.events;
    store.seek(5_000);
    await flushPromises();
    // The window at 5,000 was drawn, then its first events were read behind it.
    expect(fake.served.events).toBeGreaterThan(served);
    expect(store.getReplay().lastSeq).toBeGreaterThan(5_000);
    expect(published).toEqual([5_000]);
    expect(store.display?.counters.messages).toBe(foldEvents(stored.slice(0, 5_000)).counters.messages);

    // A step within the window is drawn (a new display), and only once.
    store.seek(5_001);
    await flushPromises();
    expect(published).toEqual([5_000, 5_001]);
    expect(store.display?.seq).toBe(5_001);
    scope.stop();
  });

  it('draws only the windows asked for when a seek comes while a window reads its first events', async () => {
    const stored = storedLog();
    const fake = backend(stored);
    const held: Array<() => void> = [];
    let holding = false;
    const bridge: Bridge = {
      ...fake.bridge,
      call: async (channel, input) => {
        if (channel === 'sessions.events' && holding) await new Promise<void>((resume) => held.push(resume));
        return fake.bridge.call(channel, input);
      },
    };
    setBridge(bridge);
    const store = useSessionStore();
    await store.open('s1');
    await flushPromises();
    const scope = effectScope();
    const published: number[] = [];
    scope.run(() =>
      watch(
        () => store.display,
        (display) => published.push(display?.seq ?? -1),
      ),
    );
    const release = async () => {
      while (held.length > 0) held.shift()!();
      await flushPromises();
    };

    holding = true;
    store.seek(5_000);
    await flushPromises();
    expect(published).toEqual([5_000]);
    expect(held.length).toBe(1);
    // The next seek comes while the events after 5,000 are still on their way.
    store.seek(9_000);
    await release();
    await release();
    expect(published).toEqual([5_000, 9_000]);
    expect(store.display?.counters.messages).toBe(foldEvents(stored.slice(0, 9_000)).counters.messages);
    expect(store.getReplay().lastSeq).toBeGreaterThan(9_000);
    scope.stop();
  });

  it('lets go of what it held when the view closes, a whole log or a window', async () => {
    const short = new EventLog().start();
    for (let i = 0; i < 20; i++)
      short.say(`m${i}`, AGENTS[i % 3] as string, AGENTS[(i + 1) % 3] as string, ['x']);
    for (const stored of [short.stop().events, storedLog()]) {
      setActivePinia(createPinia());
      setBridge(backend(stored).bridge);
      const store = useSessionStore();
      await store.open('s1');
      await flushPromises();
      expect(store.getReplay().lastSeq).toBe(stored.length);
      expect(store.getLog().size).toBeGreaterThan(0);
      store.close();
      expect(store.display).toBeNull();
      expect(store.getReplay().lastSeq).toBe(0);
      expect(store.getTimeline().lastSeq).toBe(0);
      expect(store.getLog().size).toBe(0);
    }
  });

  it('follows a live long session at its end, and goes back to live from far behind', async () => {
    const log = longLog();
    const stored = log.events;
    const fake = backend(stored);
    setBridge(fake.bridge);
    const store = useSessionStore();
    await store.open('s1');
    await flushPromises();
    expect(store.windowed).toBe(true);
    expect(store.isActive).toBe(true);
    expect(store.following).toBe(true);
    const before = stored.length;
    log.say('late', 'critic', 'planner', ['still here']);
    fake.emit({
      seq: 1,
      channel: 'run.events',
      payload: { sessionId: 's1', events: log.events.slice(before) },
    });
    await nextFrames(50);
    expect(store.display?.seq).toBe(log.events.length);
    expect(store.display?.lastSeq).toBe(log.events.length);
    expect(store.getLog().entries.at(-1)?.id).toBe('late');

    store.seek(100);
    await flushPromises();
    expect(store.display?.seq).toBe(100);
    expect(store.following).toBe(false);
    store.goLive();
    await flushPromises();
    expect(store.following).toBe(true);
    expect(store.display?.seq).toBe(log.events.length);
    expect(store.getTimeline().lastSeq).toBe(0);
  });
});
