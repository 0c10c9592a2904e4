import { z } from 'zod';
import { runEventListSchema } from './session-views';

/** Events flow from main to the renderer. Each is delivered with a hub-wide sequence number. */
export const eventChannels = {
  /** Heartbeat, every few seconds, so a surface can tell the backend is alive. */
  ping: z.object({ n: z.number().int().nonnegative(), at: z.number() }),
  /** Something in the store changed; views showing `topic` should refresh. */
  'store.changed': z.object({ topic: z.string(), id: z.string().optional() }),
  /**
   * A run's events since the last batch (coalesced per frame), in seq order. Each client receives
   * them only for the sessions it watches (`sessions.watch`); everything else goes to every client.
   */
  'run.events': z.object({ sessionId: z.string(), events: runEventListSchema }),
  /**
   * Hub seqs `fromSeq` through this event's seq were addressed to other clients (run events of
   * sessions this one does not watch). Nothing to apply: it only keeps the gap check exact. The
   * bridges consume it; views never see it.
   */
  'events.skipped': z.object({ fromSeq: z.number().int().positive() }),
  /** Progress of a long task (import, export); `total` is null when unknown. */
  'task.progress': z.object({
    taskId: z.string(),
    label: z.string(),
    done: z.number().nonnegative(),
    total: z.number().nonnegative().nullable(),
    finished: z.boolean(),
  }),
} as const;

export type EventChannel = keyof typeof eventChannels;
export type EventPayload<C extends EventChannel> = z.infer<(typeof eventChannels)[C]>;

/** One delivered event. `seq` increases by one per event across the whole hub. */
export type Delivered = {
  [C in EventChannel]: { seq: number; channel: C; payload: EventPayload<C> };
}[EventChannel];
