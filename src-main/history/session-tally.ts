import type { SessionStatus, ViewState } from '@shared/domain';
import type { OpenMessage } from './message-refs';

/** In-memory state of a session being written: what the next commit puts in its row. */
export interface SessionTally {
  id: string;
  /** Epoch milliseconds; event `t` values are relative to it. */
  createdAt: number;
  status: SessionStatus;
  stopReason: string | null;
  endedAt: number | null;
  lastSeq: number;
  lastT: number;
  messageCount: number;
  tokens: number;
  /** Dollars of the priced model calls, calls with tokens and no price, and the calls' durations (ms). */
  cost: number;
  unpricedCalls: number;
  busyMs: number;
  /** Live fold, compacted at every checkpoint so it stays small. */
  view: ViewState;
  eventsSinceCheckpoint: number;
  /** Streaming messages: text received since the last commit, and usage recorded so far. */
  open: Map<string, OpenMessage>;
  /** The session's integer key (`sessions.sid`), looked up on first write. */
  sid?: number;
}
