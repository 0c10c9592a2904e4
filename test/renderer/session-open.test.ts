import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { watch } from 'vue';
import type { ChannelName, StoredMessage } from '@shared/contract';
import { compactInPlace, foldEvents, type RunEvent } from '@shared/domain';
import { setBridge } from '../../src-renderer/bridge/current';
import { useSessionStore } from '../../src-renderer/session/session-store';
import { createFakeBridge } from '../helpers/fake-bridge';
import { EventLog, sessionListItem, threeAgents } from './session-fixture';

const MESSAGES = 300;

function storedLog(): RunEvent[] {
  const log = new EventLog().start();
  for (let i = 0; i < MESSAGES; i++)
    log.say(`m${i}`, i % 2 ? 'writer' : 'planner', i % 2 ? 'planner' : 'writer', ['a ', 'b'], {
      parentId: i ? `m${i - 1}` : null,
    });
  log.say('live', 'critic', 'writer', ['still '], { threadId: 't-live' });
  // The last message is still streaming: drop its completion so the head has it in flight.
  return log.events
    .filter((event) => !(event.kind === 'message.completed' && event.payload.message.id === 'live'))
    .map((event, index) => ({ ...event, seq: index + 1 }));
}

/** The store's answers, computed the way the HistoryStore does from the stored log. */
function backend(stored: RunEvent[]) {
  const summary = sessionListItem('s1', { title: 'Long', messageCount: MESSAGES });
  const messages: StoredMessage[] = stored.flatMap((event) =>
    event.kind === 'message.completed'
      ? [{ ...event.payload.message, seq: event.seq, droppedReason: null }]
      : [],
  );
  return createFakeBridge((channel: ChannelName, input: unknown) => {
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
        const { before, limit = 100 } = input as { before?: { seq: number }; limit?: number };
        const upTo = messages.filter((message) => message.seq < (before?.seq ?? Infinity));
        return {
          ok: true,
          value: { items: upTo.slice(-limit), hasBefore: upTo.length > limit, hasAfter: false },
        };
      }
      case 'sessions.events': {
        const { afterSeq, limit } = input as { afterSeq: number; limit?: number };
        return {
          ok: true,
          value: {
            events: stored.filter((event) => event.seq > afterSeq).slice(0, limit ?? 20_000),
            lastSeq: stored.length,
          },
        };
      }
      default:
        return { ok: false, error: { code: 'unknown-channel', message: channel } };
    }
  });
}

describe('opening a long session', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('draws first from a seek and one page of messages, then loads the log in the background', async () => {
    const stored = storedLog();
    const fake = backend(stored);
    setBridge(fake.bridge);
    const store = useSessionStore();
    let callsAtFirstDraw: string[] | null = null;
    let firstDraw: {
      visible: number;
      lastSeq: number;
      inFlight: string[];
      messages: number;
      lastEntry: string | undefined;
    } | null = null;
    watch(
      () => store.display,
      (display) => {
        if (!display || firstDraw) return;
        callsAtFirstDraw = fake.calls.map((call) => call.channel);
        firstDraw = {
          visible: display.visibleCount,
          lastSeq: display.lastSeq,
          inFlight: Object.keys(display.inFlight),
          messages: display.counters.messages,
          lastEntry: store.getLog().entries.at(-1)?.id,
        };
      },
      { flush: 'sync' },
    );
    await store.open('s1');

    expect(callsAtFirstDraw).toEqual(
      expect.arrayContaining(['sessions.get', 'sessions.seek', 'sessions.messages']),
    );
    expect(callsAtFirstDraw).not.toContain('sessions.events');
    expect(fake.calls.filter((call) => call.channel === 'sessions.messages')).toHaveLength(1);
    // The page of 200 plus the message in flight; the scrubber already spans the whole log.
    expect(firstDraw).toEqual({
      visible: 201,
      lastSeq: stored.length,
      inFlight: ['live'],
      messages: MESSAGES,
      lastEntry: 'live',
    });

    // Then the whole log, for replay.
    expect(fake.calls.some((call) => call.channel === 'sessions.events')).toBe(true);
    expect(store.loading).toBe(false);
    expect(store.getTimeline().lastSeq).toBe(stored.length);
    expect(store.display?.visibleCount).toBe(MESSAGES + 1);
  });

  it('seeks through the store before the log has loaded, and keeps the playhead once it has', async () => {
    const stored = storedLog();
    const fake = backend(stored);
    setBridge(fake.bridge);
    const store = useSessionStore();
    const opened = store.open('s1');
    await flushPromises();
    expect(store.display).not.toBeNull();
    expect(store.loading).toBe(true);

    const target =
      stored.findIndex((event) => event.kind === 'message.completed' && event.payload.message.id === 'm9') +
      1;
    store.seek(target);
    await flushPromises();
    expect(
      fake.calls.find(
        (call) => call.channel === 'sessions.seek' && (call.input as { seq: number }).seq === target,
      ),
    ).toBeDefined();
    expect(
      fake.calls.find(
        (call) =>
          call.channel === 'sessions.messages' &&
          (call.input as { before?: { seq: number } }).before?.seq === target + 1,
      ),
    ).toBeDefined();
    expect(store.display?.seq).toBe(target);
    expect(store.display?.visibleCount).toBe(10);
    expect(store.display?.counters.messages).toBe(10);

    await opened;
    expect(store.loading).toBe(false);
    expect(store.display?.seq).toBe(target);
    expect(store.display?.visibleCount).toBe(10);
    expect(store.display?.lastSeq).toBe(stored.length);
  });
});
