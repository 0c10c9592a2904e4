import type { AgentNodeData } from './graph-mapper';

/**
 * Streaming text reaches a node at most this often. Agents stream a few characters per event,
 * so following every frame re-renders, re-lays-out and repaints up to 16 nodes per frame for
 * text nobody reads at 60 Hz; 10 updates a second look just as live.
 */
export const STREAM_INTERVAL_MS = 100;

/**
 * Decides which node-data changes go to Vue Flow now. Any change other than the streaming tail
 * (status, counts, a pulse) goes through at once; a change of only the tail waits until the
 * node's last update is `STREAM_INTERVAL_MS` old. `pending` says a held-back change needs a
 * later `due` call.
 */
export class StreamThrottle {
  /** Last data sent per node, serialized without the streaming tail, and the tail itself. */
  private readonly sent = new Map<string, { rest: string; streaming: string; at: number }>();
  pending = false;

  reset(): void {
    this.sent.clear();
    this.pending = false;
  }

  /** Remembers `data` as sent (a fresh set of nodes). */
  mark(id: string, data: AgentNodeData, now: number): void {
    this.sent.set(id, { rest: restOf(data), streaming: data.streaming, at: now });
  }

  /** True when `data` should be sent now (and records it as sent). */
  due(id: string, data: AgentNodeData, now: number): boolean {
    const rest = restOf(data);
    const last = this.sent.get(id);
    if (last && last.rest === rest) {
      if (last.streaming === data.streaming) return false;
      // Only the tail grew: hold it back inside the interval; an emptied tail goes at once.
      if (data.streaming !== '' && now - last.at < STREAM_INTERVAL_MS) {
        this.pending = true;
        return false;
      }
    }
    this.sent.set(id, { rest, streaming: data.streaming, at: now });
    return true;
  }
}

function restOf(data: AgentNodeData): string {
  return JSON.stringify({ ...data, streaming: undefined });
}
