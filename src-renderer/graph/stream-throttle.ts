import type { AgentNodeData } from './graph-mapper';

/**
 * Streaming text reaches a node at most this often. Agents stream a few characters per event,
 * so following every frame re-renders, re-lays-out and repaints up to 16 nodes per frame for
 * text nobody reads at 60 Hz; 10 updates a second look just as live.
 */
export const STREAM_INTERVAL_MS = 100;

/**
 * Decides which node-data changes go to Vue Flow now. Any change other than the streaming tail
 * (status, counts, a pulse) goes through at once. Changes of only the tail go out together, for
 * every node at once, once every `STREAM_INTERVAL_MS`: one frame in six does the text work and
 * the frames between have none, instead of some node's text in every frame. `pending` says a
 * held-back change needs a later call.
 */
export class StreamThrottle {
  /** Last data sent per node, serialized without the streaming tail, and the tail itself. */
  private readonly sent = new Map<string, { rest: string; streaming: string }>();
  private lastTails = -Infinity;
  private tailsDue = true;
  pending = false;

  reset(): void {
    this.sent.clear();
    this.pending = false;
    this.lastTails = -Infinity;
  }

  /** Remembers `data` as sent (a fresh set of nodes). */
  mark(id: string, data: AgentNodeData): void {
    this.sent.set(id, { rest: restOf(data), streaming: data.streaming });
  }

  /** Starts a round of `due` calls: whether held-back tails may go out in this one. */
  begin(now: number): void {
    this.pending = false;
    this.tailsDue = now - this.lastTails >= STREAM_INTERVAL_MS;
    if (this.tailsDue) this.lastTails = now;
  }

  /** True when `data` should be sent now (and records it as sent). */
  due(id: string, data: AgentNodeData): boolean {
    const rest = restOf(data);
    const last = this.sent.get(id);
    if (last && last.rest === rest) {
      if (last.streaming === data.streaming) return false;
      // Only the tail grew: hold it back until the next round of tails; an emptied tail goes at once.
      if (data.streaming !== '' && !this.tailsDue) {
        this.pending = true;
        return false;
      }
    }
    this.sent.set(id, { rest, streaming: data.streaming });
    return true;
  }
}

function restOf(data: AgentNodeData): string {
  return JSON.stringify({ ...data, streaming: undefined });
}
