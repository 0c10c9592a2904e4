import type { Delivered, Result, ServerFrame } from '@shared/contract';
import { WS_PATH } from '@shared/contract';
import { Emitter } from './emitter';
import { Sequencer } from './sequencer';
import type { Bridge, ConnectionState } from './types';
import { uploadImport, type UploadSender } from './upload-import';
import { WatchSet } from './watch-set';

/** The subset of the WebSocket API the bridge uses (the browser's, or `ws` in tests). */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  send(data: string): void;
  close(): void;
}
export type SocketFactory = (url: string) => SocketLike;

export interface WsBridgeOptions {
  /** ws://host:port/ws?token=... */
  url: string;
  /** http://host:port/api/import?token=...: where import files are uploaded (see upload-import.ts). */
  uploadUrl: string;
  /** How uploads are sent (XMLHttpRequest in a page, fetch where there is none). */
  sendUpload?: UploadSender;
  createSocket?: SocketFactory;
  /** Reconnect delays grow from `minDelayMs` by doubling up to `maxDelayMs`. */
  minDelayMs?: number;
  maxDelayMs?: number;
}

const OPEN = 1;

type Pending = { frame: string; resolve: (result: Result<never>) => void };

/**
 * Bridge over the web host's WebSocket. Reconnects with backoff; on every (re)connect it says
 * hello with the last applied seq and the watched sessions, so the host replays what was missed
 * (run events of those sessions included); duplicates are dropped and a host that cannot replay
 * (restarted, or too far behind) triggers a resync. Import files go over HTTP, as streamed uploads.
 */
export function createWsBridge(options: WsBridgeOptions): Bridge {
  const createSocket = options.createSocket ?? ((url: string) => new WebSocket(url) as unknown as SocketLike);
  const minDelay = options.minDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 5000;
  const events = new Emitter<Delivered>();
  const resync = new Emitter<void>();
  const connection = new Emitter<ConnectionState>();
  const sequencer = new Sequencer((event) => events.fire(event));
  const inFlight = new Map<number, Pending>();
  const queued: Pending[] = [];
  let nextId = 1;
  let epoch: string | null = null;
  let state: ConnectionState = 'connecting';
  let socket: SocketLike | null = null;
  let delay = minDelay;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let disposed = false;
  /** The watched sessions the last hello carried. */
  let helloWatch: string[] = [];

  const setState = (next: ConnectionState) => {
    if (next === state) return;
    state = next;
    connection.fire(next);
  };

  const handleFrame = (frame: ServerFrame) => {
    switch (frame.type) {
      case 'welcome': {
        const firstContact = epoch === null;
        const needsResync = frame.resync || (!firstContact && frame.epoch !== epoch);
        epoch = frame.epoch;
        // On first contact nothing before `seq` is ours to apply; on a reconnect to the same launch
        // the host replays what we missed, so the position must stay where we left off.
        if (needsResync || firstContact) sequencer.reset(frame.seq);
        delay = minDelay;
        setState('online');
        // A view that began watching after the hello left (the socket was open, the welcome not
        // yet here) is in no hello and sent no call: it is sent now, before its load's calls, so
        // the load reads the store after the host relays the session's events to this page.
        if (watched.ids.join('\n') !== helloWatch.join('\n'))
          void call('sessions.watch', { ids: watched.ids });
        for (const pending of queued.splice(0)) sendPending(pending);
        if (needsResync) resync.fire();
        return;
      }
      case 'events':
        for (const event of frame.events) {
          if (!sequencer.accept(event)) {
            // A gap on a live socket means the host lost track of us: start over.
            socket?.close();
            return;
          }
        }
        return;
      case 'result': {
        const pending = inFlight.get(frame.id);
        inFlight.delete(frame.id);
        pending?.resolve(frame.result as Result<never>);
        return;
      }
    }
  };

  const sendPending = (pending: Pending) => {
    const id = JSON.parse(pending.frame).id as number;
    inFlight.set(id, pending);
    socket?.send(pending.frame);
  };

  const connect = () => {
    if (disposed) return;
    setState('connecting');
    const current = createSocket(options.url);
    socket = current;
    current.onopen = () => {
      helloWatch = watched.ids;
      current.send(JSON.stringify({ type: 'hello', epoch, lastSeq: sequencer.lastSeq, watch: helloWatch }));
    };
    current.onmessage = (message) => {
      try {
        handleFrame(JSON.parse(String(message.data)) as ServerFrame);
      } catch {
        // A frame we cannot read is ignored; the sequence check heals any loss.
      }
    };
    current.onerror = () => undefined;
    current.onclose = () => {
      if (socket !== current) return;
      socket = null;
      for (const [id, pending] of inFlight) {
        inFlight.delete(id);
        pending.resolve({
          ok: false,
          error: { code: 'unavailable', message: 'Connection to Fleetscope lost' },
        });
      }
      if (disposed) return;
      setState('offline');
      retryTimer = setTimeout(connect, delay);
      delay = Math.min(maxDelay, delay * 2);
    };
  };
  const call: Bridge['call'] = (channel, input) =>
    new Promise((resolve) => {
      const frame = JSON.stringify({ type: 'call', id: nextId++, channel, payload: input });
      const pending: Pending = { frame, resolve: resolve as Pending['resolve'] };
      if (state === 'online' && socket?.readyState === OPEN) sendPending(pending);
      else queued.push(pending);
    });
  // Until the welcome the next hello carries the set, or the welcome sends it (see above).
  const watched = new WatchSet((ids) => {
    if (state === 'online') void call('sessions.watch', { ids });
  });
  connect();

  return {
    surface: 'browser',
    get connection() {
      return state;
    },
    call,
    watchSession: (sessionId) => watched.add(sessionId),
    importFile: (file, request, transfer) =>
      uploadImport(options.uploadUrl, file, request, transfer, options.sendUpload),
    onDidReceiveEvent: (listener) => events.on(listener),
    onDidRequireResync: (listener) => resync.on(listener),
    onDidChangeConnection: (listener) => connection.on(listener),
    dispose() {
      disposed = true;
      if (retryTimer) clearTimeout(retryTimer);
      socket?.close();
      events.clear();
    },
  };
}

/** The socket URL for the page we were served from. */
export function socketUrlFor(location: { host: string; protocol: string }, token: string | null): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return `${scheme}//${location.host}${WS_PATH}${query}`;
}
