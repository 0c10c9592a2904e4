import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type { ChannelName, SessionListItem } from '@shared/contract';
import { setBridge } from '../../src-renderer/bridge/current';
import { useSessionStore } from '../../src-renderer/session/session-store';
import { createFakeBridge } from '../helpers/fake-bridge';
import { EventLog, sessionListItem, threeAgents } from './session-fixture';

const summaryOf = (id: string): SessionListItem =>
  sessionListItem(id, {
    title: `Session ${id}`,
    task: 'Write a haiku',
    status: 'running',
    createdAt: 1,
    updatedAt: 2,
    endedAt: null,
  });

describe('the open session watches its live run events', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('watches the session it opens, moves the watch on to the next one, and releases it on close', async () => {
    const log = new EventLog().start();
    const fake = createFakeBridge((channel: ChannelName, input: unknown) => {
      const id = (input as { id?: string }).id ?? 's1';
      switch (channel) {
        case 'sessions.get':
          return { ok: true, value: { summary: summaryOf(id), fleet: threeAgents } };
        case 'sessions.events':
          return {
            ok: true,
            value: {
              events: log.events.map((event) => ({ ...event, sessionId: id })),
              lastSeq: log.events.length,
            },
          };
        default:
          return { ok: false, error: { code: 'unknown-channel', message: channel } };
      }
    });
    setBridge(fake.bridge);
    const store = useSessionStore();
    expect(fake.watchedSessions()).toEqual([]);

    await store.open('s1');
    expect(fake.watchedSessions()).toEqual(['s1']);
    await store.open('s1');
    expect(fake.watchedSessions()).toEqual(['s1']);
    await store.open('s2');
    expect(fake.watchedSessions()).toEqual(['s2']);
    store.close();
    expect(fake.watchedSessions()).toEqual([]);
  });
});
