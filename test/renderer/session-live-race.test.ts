import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import type {
  ClientFrame,
  Delivered,
  Result,
  ServerFrame,
  SessionListItem,
  StoredMessage,
} from '@shared/contract';
import { compactInPlace, foldEvents, type RunEvent } from '@shared/domain';
import { setBridge } from '../../src-renderer/bridge/current';
import { createWsBridge, type SocketLike } from '../../src-renderer/bridge/ws-bridge';
import { useSessionStore } from '../../src-renderer/session/session-store';
import { assertContractAnswer } from '../helpers/contract-answer';
import { EventLog, sessionListItem } from './session-fixture';

/**
 * A web host played step by step: it answers a call only when told to serve the oldest frame the
 * page sent, a run event is committed (readable by calls) and relayed (sent to watching pages)
 * in two separate steps, as the real host does (display after commit, relay per frame), and run
 * events reach a page only while it watches their session.
 */
class SteppedHost {
  readonly log: RunEvent[];
  /** Events committed to the store, of `log`. */
  committed: number;
  /** Events relayed as `run.events`, of `log`. */
  relayed: number;
  /** The page closed its socket (it does on a gap in the events it was sent). */
  closed = false;
  private hubSeq = 0;
  private greeted = false;
  private watched = new Set<string>();
  private readonly inbox: ClientFrame[] = [];
  private socket: (SocketLike & { readyState: number }) | null = null;

  constructor(log: RunEvent[], committed: number) {
    this.log = log;
    this.committed = committed;
    this.relayed = committed;
  }

  readonly createSocket = (): SocketLike => {
    const socket = {
      readyState: 0,
      onopen: null,
      onclose: null,
      onerror: null,
      onmessage: null,
      send: (data: string) => this.inbox.push(JSON.parse(data) as ClientFrame),
      close: () => {
        this.closed = true;
      },
    } as SocketLike & { readyState: number };
    this.socket = socket;
    return socket;
  };

  get connected(): boolean {
    return this.socket?.readyState === 1;
  }

  get waiting(): number {
    return this.inbox.length;
  }

  connect(): void {
    if (!this.socket) throw new Error('no socket');
    this.socket.readyState = 1;
    this.socket.onopen?.({});
  }

  commit(): void {
    this.committed += 1;
  }

  relay(): void {
    const event = this.log[this.relayed] as RunEvent;
    this.relayed += 1;
    const seq = ++this.hubSeq;
    if (!this.greeted) return;
    const delivered: Delivered = this.watched.has(event.sessionId)
      ? { seq, channel: 'run.events', payload: { sessionId: event.sessionId, events: [event] } }
      : { seq, channel: 'events.skipped', payload: { fromSeq: seq } };
    this.send({ type: 'events', events: [delivered] });
  }

  serve(): void {
    const frame = this.inbox.shift();
    if (!frame) return;
    if (frame.type === 'hello') {
      this.watched = new Set(frame.watch ?? []);
      this.greeted = true;
      this.send({ type: 'welcome', epoch: 'launch-1', seq: this.hubSeq, resync: false });
      return;
    }
    const result = this.answer(frame.channel, frame.payload as Record<string, unknown>);
    assertContractAnswer(frame.channel, result);
    this.send({ type: 'result', id: frame.id, result });
  }

  private send(frame: ServerFrame): void {
    this.socket?.onmessage?.({ data: JSON.stringify(frame) });
  }

  private answer(channel: string, input: Record<string, unknown>): Result<unknown> {
    const stored = this.log.slice(0, this.committed);
    switch (channel) {
      case 'sessions.watch':
        this.watched = new Set(input.ids as string[]);
        return { ok: true, value: { ids: input.ids } };
      case 'sessions.get':
        return { ok: true, value: { summary: summaryOf(stored), fleet: null } };
      case 'sessions.seek': {
        const view = foldEvents(stored.filter((event) => event.seq <= (input.seq as number)));
        compactInPlace(view);
        return { ok: true, value: view };
      }
      case 'sessions.messages': {
        const messages: StoredMessage[] = stored.flatMap((event) =>
          event.kind === 'message.completed'
            ? [{ ...event.payload.message, seq: event.seq, droppedReason: null }]
            : [],
        );
        const limit = (input.limit as number | undefined) ?? 100;
        return {
          ok: true,
          value: { items: messages.slice(-limit), hasBefore: messages.length > limit, hasAfter: false },
        };
      }
      case 'sessions.events': {
        const after = input.afterSeq as number;
        const events = stored
          .filter((event) => event.seq > after)
          .slice(0, (input.limit as number) ?? 20_000);
        return { ok: true, value: { events, lastSeq: stored.length } };
      }
      default:
        return { ok: false, error: { code: 'unavailable', message: `${channel} is not served here` } };
    }
  }
}

function summaryOf(stored: RunEvent[]): SessionListItem {
  return sessionListItem('s1', {
    title: 'Haiku',
    task: 'Write a haiku',
    status: foldEvents(stored).status ?? 'running',
    createdAt: 1,
    updatedAt: 2,
    endedAt: null,
  });
}

/** The run: a stored start and first message, two events while the view opens, one after. */
function runLog(): RunEvent[] {
  const log = new EventLog().start();
  log.say('m1', 'planner', 'writer', ['a ', 'plan']);
  log.add(null, { kind: 'session.status', payload: { status: 'paused' } });
  log.add(null, { kind: 'session.status', payload: { status: 'running' } });
  log.add(null, { kind: 'session.status', payload: { status: 'paused' } });
  return log.events;
}
/** Events stored before the page loads; the rest come live. */
const STORED = runLog().length - 3;
/** Events committed and relayed in every position of the page's load; the last one comes after. */
const DURING = 2;

type Step = 'connect' | 'open' | 'commit' | 'relay';

/** Every order of the page's connecting and opening and the run's commits and relays. */
function schedules(): Step[][] {
  const out: Step[][] = [];
  const walk = (
    prefix: Step[],
    state: { connect: boolean; open: boolean; commit: number; relay: number },
  ) => {
    const options: Step[] = [];
    if (!state.connect) options.push('connect');
    if (!state.open) options.push('open');
    if (state.commit < DURING) options.push('commit');
    if (state.relay < state.commit) options.push('relay');
    if (options.length === 0) {
      out.push(prefix);
      return;
    }
    for (const step of options)
      walk([...prefix, step], {
        connect: state.connect || step === 'connect',
        open: state.open || step === 'open',
        commit: state.commit + (step === 'commit' ? 1 : 0),
        relay: state.relay + (step === 'relay' ? 1 : 0),
      });
  };
  walk([], { connect: false, open: false, commit: 0, relay: 0 });
  return out;
}

/** Lets the page run everything it can without the host (promises, frames, short timers). */
async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(40);
}

describe('a live session view opened while its run streams', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'requestAnimationFrame', 'cancelAnimationFrame'],
    });
  });
  afterEach(() => vi.useRealTimers());

  it('reaches the run state whatever the order of its load, the socket and the run events', async () => {
    const orders = schedules();
    // After each step the host answers every frame the page has sent so far (a quick host),
    // the oldest one only (a busy one), or nothing until all steps are taken (a stalled one).
    const failures: string[] = [];
    for (const order of orders) {
      for (const pace of ['quick', 'busy', 'stalled'] as const) {
        setActivePinia(createPinia());
        const host = new SteppedHost(runLog(), STORED);
        const bridge = createWsBridge({
          url: 'ws://host/ws',
          uploadUrl: 'http://host/api/import',
          createSocket: host.createSocket,
        });
        setBridge(bridge);
        const store = useSessionStore();
        const serveAll = async () => {
          while (host.waiting > 0) {
            host.serve();
            await settle();
          }
        };
        for (const step of order) {
          if (step === 'connect') host.connect();
          else if (step === 'open') void store.open('s1');
          else if (step === 'commit') host.commit();
          else host.relay();
          await settle();
          if (pace === 'quick') await serveAll();
          else if (pace === 'busy' && host.waiting > 0) {
            host.serve();
            await settle();
          }
        }
        await serveAll();
        // The run goes on after the page has loaded: its last event must reach the view too.
        host.commit();
        host.relay();
        await settle();
        await serveAll();
        await vi.advanceTimersByTimeAsync(1_000);
        await serveAll();
        const shown = store.display;
        if (host.closed || shown?.lastSeq !== host.log.length || shown.headStatus !== 'paused')
          failures.push(
            `${order.join(' ')} (${pace} host): shows seq ${shown?.lastSeq} ${shown?.headStatus}${host.closed ? ', closed its socket' : ''}`,
          );
        store.close();
        bridge.dispose();
      }
    }
    expect(orders.length).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
});
