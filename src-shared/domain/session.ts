import { z } from 'zod';

export const SESSION_STATUSES = [
  'running',
  'paused',
  'waiting-for-human',
  'completed',
  'stopped',
  'failed',
  'interrupted',
] as const;
export const sessionStatusSchema = z.enum(SESSION_STATUSES);
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

/** Statuses of a session that a process is driving right now (the one list; do not repeat it). */
export const LIVE_STATUSES = [
  'running',
  'paused',
  'waiting-for-human',
] as const satisfies readonly SessionStatus[];
export type LiveStatus = (typeof LIVE_STATUSES)[number];

/** True when a process is driving the session (running, paused or waiting for a human). */
export function isLiveStatus(status: SessionStatus | null | undefined): status is LiveStatus {
  return status != null && (LIVE_STATUSES as readonly string[]).includes(status);
}

/** Statuses a session can no longer leave without a new task. */
export const FINAL_STATUSES: readonly SessionStatus[] = ['completed', 'stopped', 'failed', 'interrupted'];

export const sessionSummarySchema = z.object({
  id: z.string(),
  title: z.string(),
  task: z.string(),
  fleetName: z.string(),
  status: sessionStatusSchema,
  stopReason: z.string().nullable(),
  /** Epoch milliseconds. */
  createdAt: z.number(),
  updatedAt: z.number(),
  endedAt: z.number().nullable(),
  messageCount: z.number().int().nonnegative(),
  tokens: z.number().int().nonnegative(),
  /**
   * Dollars of its priced model calls, and how many calls with tokens have no known price (the
   * cost is complete only when that is 0; see formatCost). Always answered by the store.
   */
  cost: z.number().nonnegative().optional(),
  unpricedCalls: z.number().int().nonnegative().optional(),
  parentSessionId: z.string().nullable(),
  forkSeq: z.number().int().nullable(),
  tags: z.array(z.string()),
  /** Imported sessions are read-only. */
  source: z.string(),
  readOnly: z.boolean(),
});
export type SessionSummary = z.infer<typeof sessionSummarySchema>;
