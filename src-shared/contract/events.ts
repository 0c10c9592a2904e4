import { z } from 'zod';
import type { RunEvent } from '../domain';

/** Events flow from main to the renderer. Each is delivered with a hub-wide sequence number. */
export const eventChannels = {
  /** Heartbeat, every few seconds, so a surface can tell the backend is alive. */
  ping: z.object({ n: z.number().int().nonnegative(), at: z.number() }),
  /** Something in the store changed; views showing `topic` should refresh. */
  'store.changed': z.object({ topic: z.string(), id: z.string().optional() }),
  /** A run's events since the last batch (coalesced per frame), in seq order. */
  'run.events': z.object({ sessionId: z.string(), events: z.custom<RunEvent[]>() }),
  /** Progress of a long task (import, export); `total` is null when unknown. */
  'task.progress': z.object({
    taskId: z.string(),
    label: z.string(),
    done: z.number(),
    total: z.number().nullable(),
    finished: z.boolean(),
  }),
} as const;

export type EventChannel = keyof typeof eventChannels;
export type EventPayload<C extends EventChannel> = z.infer<(typeof eventChannels)[C]>;

/** One delivered event. `seq` increases by one per event across the whole hub. */
export type Delivered = {
  [C in EventChannel]: { seq: number; channel: C; payload: EventPayload<C> };
}[EventChannel];
