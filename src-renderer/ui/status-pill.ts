import { isLiveStatus, type SessionStatus } from '@shared/domain';
import { STATUS_LABELS } from './format';

/** Where the view stands: its playhead and the end of the log. */
export interface PillPosition {
  seq: number;
  lastSeq: number;
}

/** What the pill says and the status its colour follows. */
export interface PillState {
  /** `replaying` behind the end of the log, else the session's status (or `unknown`). */
  status: SessionStatus | 'replaying' | 'unknown';
  mode: 'replay' | 'live' | 'final';
  label: string;
}

/**
 * What the session view shows, in a word or two: "Replaying · 12/340" while the playhead is
 * behind the end of the log (playing or not: a replay is never "Running"), "Live" while it
 * follows a run a process drives ("Paused" and "Waiting for you" for such a run held there),
 * else the session's final status. Without a position (a list row) it is the status alone.
 */
export function pillState(status: SessionStatus | null, position?: PillPosition | null): PillState {
  if (position && position.seq < position.lastSeq)
    return { status: 'replaying', mode: 'replay', label: `Replaying · ${position.seq}/${position.lastSeq}` };
  if (status === null) return { status: 'unknown', mode: 'final', label: '–' };
  if (isLiveStatus(status))
    return { status, mode: 'live', label: status === 'running' && position ? 'Live' : STATUS_LABELS[status] };
  return { status, mode: 'final', label: STATUS_LABELS[status] };
}
