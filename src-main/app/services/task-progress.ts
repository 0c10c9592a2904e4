import { randomUUID } from 'node:crypto';
import type { EventHub } from '../delivery/event-hub';

/** At most one progress event per task per this many ms (the last one always goes out). */
const THROTTLE_MS = 100;

/**
 * Reports a long task's progress as `task.progress` events, throttled so a 100k-event export
 * does not flood the transport.
 */
export function trackTask(hub: EventHub, label: string, taskId: string = randomUUID()) {
  let lastAt = 0;
  const send = (done: number, total: number | null, finished: boolean) =>
    hub.emit('task.progress', { taskId, label, done, total, finished });
  send(0, null, false);
  return {
    taskId,
    progress(done: number, total: number | null) {
      const now = Date.now();
      if (now - lastAt < THROTTLE_MS) return;
      lastAt = now;
      send(done, total, false);
    },
    finish(done: number, total: number | null) {
      send(done, total, true);
    },
  };
}
