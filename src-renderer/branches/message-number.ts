import type { LogEntry, MessageLog } from '../session/message-log';

/**
 * Where the store lists a message: a completed (or dropped) message at the seq it completed at,
 * one still being written at the seq it started at. `show` and `branches.fork` number messages
 * in this order (1 = the task).
 */
function storeSeq(entry: LogEntry): number {
  return Number.isFinite(entry.endSeq) ? entry.endSeq : entry.startSeq;
}

/** A message a fork can start from, with its number. */
export interface ForkPoint {
  atMessage: number;
  entry: LogEntry;
}

/** The number of message `id` as `show` prints it; null when the log does not hold it. */
export function messageNumberOf(log: MessageLog, id: string): number | null {
  const index = log.indexOf(id);
  if (index === undefined) return null;
  const target = storeSeq(log.entries[index] as LogEntry);
  let before = 0;
  for (const entry of log.entries) if (storeSeq(entry) < target) before += 1;
  return before + 1;
}

/**
 * The last message complete at or before `seq` (the replay playhead), with its number; null when
 * no message has completed by then.
 */
export function forkPointAt(log: MessageLog, seq: number): ForkPoint | null {
  let best: LogEntry | null = null;
  for (const entry of log.entries) {
    if (entry.final === null || entry.endSeq > seq) continue;
    if (!best || entry.endSeq > best.endSeq) best = entry;
  }
  if (!best) return null;
  return { atMessage: messageNumberOf(log, best.id) ?? 1, entry: best };
}

/** Whether some message is complete at `seq` (stops at the first one: cheap enough per frame). */
export function hasForkPointAt(log: MessageLog, seq: number): boolean {
  return log.entries.some((entry) => entry.final !== null && entry.endSeq <= seq);
}

/** Why a fork cannot start at this message; null when it can. */
export function forkPointBlocker(entry: LogEntry | null): string | null {
  if (!entry) return 'There is no message here to fork from yet.';
  if (entry.final === null) return 'This message is still being written: fork once it is complete.';
  if (entry.final.state === 'streaming') return 'This message is still being written.';
  return null;
}
