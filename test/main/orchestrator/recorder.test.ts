import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventBody, RunEvent } from '@shared/domain';
import { MemorySink } from '../../../src-main/orchestrator';
import { DELTA_COALESCE_MS, EventRecorder } from '../../../src-main/orchestrator/runtime/recorder';
import { SecretMasker } from '../../../src-main/orchestrator/runtime/secret-masker';
import { demoFleet, openTempHistory } from '../../helpers/temp-store';

const KEY = 'sk-test-0123456789abcdef';

const started = (): EventBody => ({
  kind: 'session.started',
  payload: {
    title: 'Recorder',
    task: 'go',
    fleetName: demoFleet.name,
    fleet: demoFleet,
    parentSessionId: null,
    forkSeq: null,
  },
});
const opened = (messageId: string): EventBody => ({
  kind: 'message.started',
  payload: { messageId, threadId: messageId, parentId: null, from: 'alice', to: 'bob', kind: 'text' },
});
const delta = (messageId: string, text: string): EventBody => ({
  kind: 'message.delta',
  payload: { messageId, text },
});
const completed = (messageId: string, content: string): EventBody => ({
  kind: 'message.completed',
  payload: {
    message: {
      id: messageId,
      threadId: messageId,
      parentId: null,
      from: 'alice',
      to: 'bob',
      kind: 'text',
      content,
      meta: {},
      state: 'complete',
      t: 0,
    },
  },
});

const textOf = (events: readonly RunEvent[]) =>
  events.flatMap((event) => (event.kind === 'message.delta' ? [event.payload.text] : []));

afterEach(() => {
  vi.useRealTimers();
});

describe('EventRecorder: streamed pieces', () => {
  it('records pieces that arrive within one frame as one delta, stamped when the first arrived', () => {
    vi.useFakeTimers();
    let clock = 0;
    const sink = new MemorySink();
    const recorder = new EventRecorder('s1', sink, { clock: () => clock });
    recorder.emit(null, started());
    recorder.emit('alice', opened('m1'));
    clock = 3;
    recorder.emit('alice', delta('m1', 'Hel'));
    clock = 5;
    recorder.emit('alice', delta('m1', 'lo'));
    expect(sink.events.map((event) => event.kind)).toEqual(['session.started', 'message.started']);
    vi.advanceTimersByTime(DELTA_COALESCE_MS);
    expect(textOf(sink.events)).toEqual(['Hello']);
    expect(sink.events.at(-1)?.t).toBe(3);
    // A piece after the frame ended is a delta of its own.
    clock = 40;
    recorder.emit('alice', delta('m1', ', world'));
    vi.advanceTimersByTime(DELTA_COALESCE_MS);
    expect(textOf(sink.events)).toEqual(['Hello', ', world']);
    expect(sink.events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
  });

  it('records what is pending before any other event, so deltas always precede their completion', () => {
    vi.useFakeTimers();
    const sink = new MemorySink();
    const recorder = new EventRecorder('s1', sink);
    recorder.emit(null, started());
    recorder.emit('alice', opened('m1'));
    recorder.emit('alice', opened('m2'));
    recorder.emit('alice', delta('m1', 'one '));
    recorder.emit('alice', delta('m2', 'two '));
    recorder.emit('alice', delta('m1', 'three'));
    recorder.emit('alice', { kind: 'agent.status', payload: { status: 'streaming' } });
    recorder.emit('alice', completed('m1', 'one three'));
    expect(
      sink.events.map((event) =>
        event.kind === 'message.delta' ? `${event.payload.messageId}:${event.payload.text}` : event.kind,
      ),
    ).toEqual([
      'session.started',
      'message.started',
      'message.started',
      'm1:one three',
      'm2:two ',
      'agent.status',
      'message.completed',
    ]);
    recorder.emit('alice', delta('m2', 'more'));
    recorder.flush();
    expect(textOf(sink.events).at(-1)).toBe('more');
    expect(sink.flushes).toBe(1);
  });

  it('masks a key split across recorded deltas: no piece holds it, and they add up to the masked text', () => {
    vi.useFakeTimers();
    const sink = new MemorySink();
    const masker = new SecretMasker([{ value: KEY, label: 'TEST_KEY' }]);
    const recorder = new EventRecorder('s1', sink, { masker });
    const shown: RunEvent[] = [];
    recorder.onDidEvent((event) => shown.push(event));
    recorder.emit(null, started());
    recorder.emit('alice', opened('m1'));
    const text = `my key is ${KEY} ok`;
    // Each piece lands in a frame of its own, so the key is split across recorded deltas.
    for (let index = 0; index < text.length; index += 5) {
      recorder.emit('alice', delta('m1', text.slice(index, index + 5)));
      vi.advanceTimersByTime(DELTA_COALESCE_MS);
    }
    recorder.emit('alice', completed('m1', text));
    const masked = 'my key is [masked TEST_KEY] ok';
    expect(textOf(sink.events).length).toBeGreaterThan(3);
    expect(textOf(sink.events).join('')).toBe(masked);
    expect(JSON.stringify(sink.events)).not.toContain(KEY);
    for (let cut = 8; cut < KEY.length; cut += 1)
      for (const piece of textOf(sink.events)) expect(piece).not.toContain(KEY.slice(0, cut));
    expect(shown).toEqual(sink.events);
  });
});

describe('EventRecorder: durability before display', () => {
  const stores: Array<{ cleanup(): void }> = [];
  afterEach(() => stores.splice(0).forEach((store) => store.cleanup()));

  it('shows an event to listeners only after the store committed it, in order', () => {
    const history = openTempHistory({ batchMs: 60_000, recover: false });
    stores.push(history);
    const recorder = new EventRecorder('s1', history.store);
    const shown: RunEvent[] = [];
    const committedWhenShown: number[] = [];
    recorder.onDidEvent((event) => {
      shown.push(event);
      committedWhenShown.push(history.store.countEvents('s1'));
    });
    recorder.emit(null, started()); // a session's start commits at once
    expect(shown.map((event) => event.kind)).toEqual(['session.started']);
    recorder.emit('alice', opened('m1'));
    recorder.emit('alice', delta('m1', 'Hello'));
    // Buffered for the group commit: nobody has seen them yet.
    expect(shown).toHaveLength(1);
    expect(history.store.countEvents('s1')).toBe(1);
    recorder.flush();
    expect(shown.map((event) => event.kind)).toEqual(['session.started', 'message.started', 'message.delta']);
    recorder.emit('alice', delta('m1', '!'));
    // A completion commits without waiting for the window, with the delta before it.
    recorder.emit('alice', completed('m1', 'Hello!'));
    expect(history.store.countEvents('s1')).toBe(5);
    expect(shown.map((event) => event.kind)).toEqual([
      'session.started',
      'message.started',
      'message.delta',
      'message.delta',
      'message.completed',
    ]);
    // Every event was on disk when it was shown.
    shown.forEach((event, index) => expect(committedWhenShown[index]).toBeGreaterThanOrEqual(event.seq));
  });

  it('shows nothing of a batch whose commit failed until a later commit succeeds', () => {
    const history = openTempHistory({ batchMs: 60_000, recover: false });
    stores.push(history);
    const recorder = new EventRecorder('s1', history.store);
    const shown: string[] = [];
    recorder.onDidEvent((event) => shown.push(event.kind));
    recorder.emit(null, started());
    recorder.emit('alice', opened('m1'));
    // A second connection holds the write lock: the commit cannot happen.
    const blocker = new (history.db.constructor as new (file: string) => typeof history.db)(history.db.name);
    blocker.pragma('busy_timeout = 0');
    history.db.pragma('busy_timeout = 0');
    blocker.prepare('BEGIN IMMEDIATE').run();
    expect(() => recorder.flush()).toThrow();
    // A completion's own commit fails too: reported (onWriteError), not thrown at the run, not shown.
    recorder.emit('alice', completed('m1', 'Hello'));
    expect(shown).toEqual(['session.started']);
    blocker.prepare('ROLLBACK').run();
    blocker.close();
    recorder.flush();
    expect(shown).toEqual(['session.started', 'message.started', 'message.completed']);
    expect(history.store.countEvents('s1')).toBe(3);
  });

  it('an event a listener emits while being shown waits for its own commit, after the ones before it', () => {
    const history = openTempHistory({ batchMs: 60_000, recover: false });
    stores.push(history);
    const recorder = new EventRecorder('s1', history.store);
    const shown: string[] = [];
    recorder.onDidEvent((event) => {
      shown.push(event.kind);
      if (event.kind === 'message.completed')
        recorder.emit('alice', { kind: 'agent.status', payload: { status: 'idle' } });
    });
    recorder.emit(null, started());
    recorder.emit('alice', opened('m1'));
    recorder.emit('alice', completed('m1', 'Hello'));
    // The completion committed at once and was shown; the status its listener emitted waits.
    expect(shown).toEqual(['session.started', 'message.started', 'message.completed']);
    recorder.flush();
    expect(shown.at(-1)).toBe('agent.status');
  });

  it('a listener that throws is isolated; with nobody listening nothing is held', () => {
    const sink = new MemorySink();
    const recorder = new EventRecorder('s1', sink);
    recorder.emit(null, started());
    const seen: number[] = [];
    const stop = recorder.onDidEvent(() => {
      throw new Error('faulty');
    });
    recorder.onDidEvent((event) => seen.push(event.seq));
    recorder.emit('alice', opened('m1'));
    expect(seen).toEqual([2]);
    stop();
    recorder.clearListeners();
    recorder.emit('alice', completed('m1', 'x'));
    expect(seen).toEqual([2]);
    expect(sink.events).toHaveLength(3);
  });
});
