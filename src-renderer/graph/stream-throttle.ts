import type { AgentNodeData } from '../session/graph-mapper';

/**
 * Streaming text reaches a node at most this often. Agents stream a few characters per event,
 * so following every frame re-renders, re-lays-out and repaints up to 16 nodes per frame for
 * text nobody reads at 60 Hz; 10 updates a second look just as live.
 */
export const STREAM_INTERVAL_MS = 100;

/** What of a node's data should go out now: the rest of it, its streaming tail, both or none. */
export interface DueParts {
  rest: boolean;
  tail: boolean;
}

/**
 * Decides which node-data changes go out now. Any change other than the streaming tail
 * (status, counts, a pulse) goes at once. Tails go out together, for every node at once, once
 * every `STREAM_INTERVAL_MS`: one frame in six does the text work and the frames between have
 * none, instead of some node's text in every frame; an emptied tail goes at once. `pending` says
 * a held-back tail needs a later round.
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

  /** Which parts of `data` should be sent now (and records them as sent). */
  due(id: string, data: AgentNodeData): DueParts {
    const rest = restOf(data);
    const last = this.sent.get(id) ?? { rest: '', streaming: '' };
    const parts: DueParts = { rest: last.rest !== rest, tail: false };
    if (last.streaming !== data.streaming) {
      if (data.streaming === '' || this.tailsDue) parts.tail = true;
      else this.pending = true;
    }
    this.sent.set(id, {
      rest: parts.rest ? rest : last.rest,
      streaming: parts.tail ? data.streaming : last.streaming,
    });
    return parts;
  }
}

function restOf(data: AgentNodeData): string {
  return JSON.stringify({ ...data, streaming: undefined });
}
