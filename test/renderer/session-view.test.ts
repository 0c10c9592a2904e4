import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import type { ChannelName, SessionListItem } from '@shared/contract';
import type { RunEvent } from '@shared/domain';
import { setBridge } from '../../src-renderer/bridge/current';
import { useSessionStore } from '../../src-renderer/session/session-store';
import MessageItem from '../../src-renderer/transcript/MessageItem.vue';
import SessionsView from '../../src-renderer/sessions/SessionsView.vue';
import { createFakeBridge } from '../helpers/fake-bridge';
import { EventLog, threeAgents } from './session-fixture';
import { renderMarkdown } from '../../src-renderer/transcript/markdown';
import { rowProps } from './message-row';

const summary: SessionListItem = {
  id: 's1',
  title: 'Haiku',
  task: 'Write a haiku',
  fleetName: 'trio',
  status: 'running',
  stopReason: null,
  createdAt: Date.now(),
  updatedAt: Date.now(),
  endedAt: null,
  messageCount: 0,
  tokens: 0,
  parentSessionId: null,
  forkSeq: null,
  tags: ['poetry'],
  source: 'run',
  readOnly: false,
  durationMs: 1200,
};

/** A backend holding one session whose stored log is `stored` (it can grow during a test). */
function backend(stored: RunEvent[]) {
  const fake = createFakeBridge((channel: ChannelName, input: unknown) => {
    switch (channel) {
      case 'sessions.get':
        return { ok: true, value: { summary, fleet: threeAgents } };
      case 'sessions.events': {
        const { afterSeq, limit } = input as { afterSeq: number; limit?: number };
        const events = stored.filter((event) => event.seq > afterSeq).slice(0, limit ?? 20_000);
        return { ok: true, value: { events, lastSeq: stored.length } };
      }
      case 'sessions.list':
        return { ok: true, value: { items: [summary], total: 1 } };
      case 'fleets.list':
        return { ok: true, value: [] };
      case 'sessions.delete':
        return { ok: true, value: { deleted: true } };
      case 'sessions.importData':
        return {
          ok: false,
          error: {
            code: 'invalid-input',
            message: 'Not a transcript this app knows (line 1: unexpected token)',
          },
        };
      default:
        return { ok: false, error: { code: 'unknown-channel', message: channel } };
    }
  });
  setBridge(fake.bridge);
  return fake;
}

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));

describe('the open session', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('loads the stored log, then applies live events once per frame', async () => {
    const log = new EventLog().start();
    log.say('m1', 'user', 'planner', ['Write a haiku']);
    const stored = [...log.events];
    const fake = backend(stored);
    const store = useSessionStore();
    await store.open('s1');
    expect(store.display?.visibleCount).toBe(1);
    const before = log.events.length;
    log.say('m2', 'planner', 'writer', ['five ', 'seven ', 'five']);
    fake.emit({
      seq: 1,
      channel: 'run.events',
      payload: { sessionId: 's1', events: log.events.slice(before) },
    });
    expect(store.display?.visibleCount).toBe(1);
    await frame();
    await flushPromises();
    expect(store.display?.visibleCount).toBe(2);
    expect(store.display?.graph.nodes.find((node) => node.id === 'planner')?.data.messages).toBe(1);
  });

  it('heals a gap in live events by re-reading the log from the store', async () => {
    const log = new EventLog().start();
    log.say('m1', 'user', 'planner', ['go']);
    const stored = [...log.events];
    const fake = backend(stored);
    const store = useSessionStore();
    await store.open('s1');
    const held = log.events.length;
    log.say('m2', 'planner', 'writer', ['a', 'b']);
    log.say('m3', 'writer', 'critic', ['c']);
    stored.push(...log.events.slice(held));
    // The first live batch went missing: only the later events arrive.
    fake.emit({
      seq: 2,
      channel: 'run.events',
      payload: { sessionId: 's1', events: log.events.slice(held + 4) },
    });
    await frame();
    await flushPromises();
    await frame();
    const reads = fake.calls
      .filter((call) => call.channel === 'sessions.events')
      .map((call) => (call.input as { afterSeq: number }).afterSeq);
    expect(reads).toContain(held);
    expect(store.getTimeline().lastSeq).toBe(log.events.length);
    expect(store.display?.visibleCount).toBe(3);
  });

  it('shows the state at an earlier playhead and returns to live', async () => {
    const log = new EventLog().start();
    log.say('m1', 'user', 'planner', ['go']);
    log.say('m2', 'planner', 'writer', ['Plan ', 'ahead']);
    backend([...log.events]);
    const store = useSessionStore();
    await store.open('s1');
    const delta = log.events.find(
      (event) => event.kind === 'message.delta' && event.payload.messageId === 'm2',
    )!;
    store.seek(delta.seq);
    expect(store.following).toBe(false);
    expect(store.display?.inFlight.m2?.content).toBe('Plan ');
    expect(store.display?.graph.nodes.find((node) => node.id === 'planner')?.data.streaming).toBe('Plan ');
    store.goLive();
    expect(store.display?.seq).toBe(log.events.length);
  });
});

describe('untrusted message content in the transcript', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('renders script, event-handler and javascript: payloads as inert text', async () => {
    const log = new EventLog().start();
    const payload =
      '<script>window.__pwned = 1</script>\n\n<img src=x onerror="window.__pwned = 2">\n\n[click](javascript:window.__pwned=3)\n\n<a href="javascript:alert(1)">x</a>';
    const message = log.say('m1', 'mallory', 'user', [payload]);
    message.toolCalls = [{ id: 'c1', name: 'run', arguments: '{"x":"<img src=x onerror=alert(1)>"}' }];
    message.toolResults = [
      { callId: 'c1', name: 'run', content: '<script>alert(2)</script>', isError: false },
    ];
    const view = mount(MessageItem, {
      props: rowProps(message),
      attachTo: document.body,
    });
    await flushPromises();
    const root = view.element as HTMLElement;
    const body = root.querySelector('[data-testid="message-body"]');
    expect(body?.textContent).toContain('<script>window.__pwned = 1</script>');
    expect(body?.textContent).toContain('onerror');
    expect(root.querySelectorAll('script, img, iframe').length).toBe(0);
    const handlers = Array.from(root.querySelectorAll('*')).flatMap((element) =>
      Array.from(element.attributes).filter((attribute) => attribute.name.startsWith('on')),
    );
    expect(handlers).toEqual([]);
    const links = Array.from(root.querySelectorAll('a')).map((anchor) => anchor.getAttribute('href') ?? '');
    expect(links.filter((href) => /javascript:/i.test(href))).toEqual([]);
    expect(root.querySelector('[data-testid="tool-call"]')?.textContent).toContain('onerror=alert(1)');
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
    view.unmount();
  });

  it('highlights code and keeps ordinary links, with html disabled in markdown', () => {
    const html = renderMarkdown('```js\nconst a = 1;\n```\n\n[docs](https://example.org) <b>bold</b>');
    expect(html).toContain('hljs-keyword');
    expect(html).toContain('href="https://example.org"');
    expect(html).toContain('&lt;b&gt;bold&lt;/b&gt;');
  });
});

describe('the sessions page', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('lists sessions and deletes one only after confirming', async () => {
    const fake = backend([]);
    const view = mount(SessionsView);
    await flushPromises();
    expect(view.findAll('[data-testid="session-row"]')).toHaveLength(1);
    expect(view.text()).toContain('Haiku');
    expect(view.get('[data-testid="tag"]').text()).toBe('poetry');
    await view.get('[data-testid="row-actions"]').trigger('click');
    await view.get('[data-testid="delete-session"]').trigger('click');
    expect(fake.calls.some((call) => call.channel === 'sessions.delete')).toBe(false);
    await view.get('[data-testid="confirm-delete"]').trigger('click');
    await flushPromises();
    expect(fake.calls.find((call) => call.channel === 'sessions.delete')?.input).toEqual({ id: 's1' });
    expect(view.findAll('[data-testid="session-row"]')).toHaveLength(0);
  });

  it('shows an import error plainly', async () => {
    backend([]);
    const { useSessionListStore } = await import('../../src-renderer/sessions/session-list-store');
    const list = useSessionListStore();
    const view = mount(SessionsView);
    await flushPromises();
    const file = new File(['not json'], 'notes.txt', { type: 'text/plain' });
    await list.importFile(file);
    await flushPromises();
    expect(view.get('[data-testid="sessions-error"]').text()).toContain(
      'Could not import notes.txt: Not a transcript',
    );
  });

  it('refreshes when the store announces a change to sessions', async () => {
    vi.useFakeTimers();
    const fake = backend([]);
    mount(SessionsView);
    await flushPromises();
    const before = fake.calls.filter((call) => call.channel === 'sessions.list').length;
    fake.emit({ seq: 5, channel: 'store.changed', payload: { topic: 'sessions', id: 's1' } });
    await vi.advanceTimersByTimeAsync(600);
    expect(fake.calls.filter((call) => call.channel === 'sessions.list').length).toBe(before + 1);
    vi.useRealTimers();
  });
});
