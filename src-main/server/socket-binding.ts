import type { WebSocket } from 'ws';
import { LIMITS, type ClientFrame, type ServerFrame } from '@shared/contract';
import type { FleetscopeApp } from '../app';
import { forwardInBatches } from '../app/delivery/event-batcher';
import { addressedTo, EventClient } from '../app/delivery/event-client';

/**
 * A client that has not read this many bytes (a frozen or throttled tab) is disconnected rather
 * than buffered without bound; it reconnects and the hub replays or resynchronizes it.
 */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

function parseFrame(data: unknown): ClientFrame | null {
  try {
    const frame = JSON.parse(String(data)) as unknown;
    if (typeof frame !== 'object' || frame === null) return null;
    const f = frame as Record<string, unknown>;
    if (f.type === 'call' && typeof f.id === 'number' && typeof f.channel === 'string') {
      return { type: 'call', id: f.id, channel: f.channel, payload: f.payload };
    }
    if (f.type === 'hello' && typeof f.lastSeq === 'number') {
      return {
        type: 'hello',
        lastSeq: f.lastSeq,
        epoch: typeof f.epoch === 'string' ? f.epoch : null,
        watch: watchList(f.watch),
      };
    }
    return null;
  } catch {
    return null;
  }
}

/** The sessions a hello asks to watch: a short list of id-sized strings, or nothing at all. */
function watchList(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > LIMITS.watched) return [];
  const ids = value.filter(
    (id): id is string => typeof id === 'string' && id.length > 0 && id.length <= LIMITS.id,
  );
  return ids.length === value.length ? ids : [];
}

/**
 * Binds one browser connection to the contract: calls go through the dispatcher with this
 * connection's client (its watched sessions); events are forwarded in per-frame batches once the
 * client said hello, after replaying what it missed. Run events reach it only for the sessions
 * it watches, live and in the replay alike.
 */
export function bindSocket(ws: WebSocket, app: FleetscopeApp): void {
  const epoch = app.hub.epoch;
  const client = new EventClient();
  let greeted = false;

  const send = (frame: ServerFrame) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.terminate();
      return;
    }
    ws.send(JSON.stringify(frame));
  };
  const stopForwarding = forwardInBatches(app.hub, (events) => send({ type: 'events', events }), {
    client,
    accept: () => greeted,
  });

  ws.on('message', async (data) => {
    const frame = parseFrame(data);
    if (!frame) {
      send({
        type: 'result',
        id: -1,
        result: { ok: false, error: { code: 'invalid-input', message: 'Malformed frame' } },
      });
      return;
    }
    if (frame.type === 'hello') {
      client.watch(frame.watch ?? []);
      const sameLaunch = frame.epoch === epoch;
      const missed = sameLaunch ? app.hub.since(frame.lastSeq) : null;
      const resync = frame.epoch !== null && missed === null;
      send({ type: 'welcome', epoch, seq: app.hub.lastSeq, resync });
      if (missed && missed.length > 0) {
        send({ type: 'events', events: addressedTo(client, missed, frame.lastSeq, app.hub.lastSeq) });
      }
      greeted = true;
      return;
    }
    const result = await app.dispatcher.dispatch(frame.channel, frame.payload, {
      surface: 'browser',
      client,
    });
    send({ type: 'result', id: frame.id, result });
  });
  ws.on('close', stopForwarding);
  ws.on('error', () => ws.terminate());
}
