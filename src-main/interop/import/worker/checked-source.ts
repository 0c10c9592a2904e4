import { encodeEventBatch } from '../../../history/event-batch-text';
import type { ImportedEvent } from '../../../history/ports';
import { openImportPlan } from '../plan-import';
import { TransferError } from '../transfer-error';
import { takeEvents, type BatchSource } from './batch-source';
import type { EventBatch, JobPort, ParseJob } from './protocol';

/**
 * Files read whole (every format but our streamed export): pass one reads the whole file,
 * checking and converting every event and counting them, and keeps nothing; only when it
 * succeeds is `planned` sent, so bad input never reaches the store. Pass two reads the file
 * again and hands the converted events over in batches. Progress: the first half of the file's
 * size while pass one reads, the second half as events are handed over.
 */
export function checkedSource(port: JobPort, job: ParseJob): BatchSource {
  let lastReport = 0;
  const first = openImportPlan(job.path, job.fileTime, job.limits, (bytes) => {
    lastReport = bytes;
    port.postMessage({ type: 'read', bytes });
  });
  const eventCounts: number[] = [];
  try {
    for (const session of first.plan.sessions) {
      let eventCount = 0;
      const events = session.events[Symbol.iterator]();
      while (!events.next().done) eventCount++;
      eventCounts.push(eventCount);
    }
  } finally {
    first.close();
  }
  if (lastReport === 0) port.postMessage({ type: 'read', bytes: 0 });
  const sessions = first.plan.sessions.map((session) => ({ meta: session.meta }));
  port.postMessage({ type: 'planned', format: first.plan.format, sessions });
  const eventCount = eventCounts.reduce((sum, count) => sum + count, 0);

  const second = openImportPlan(job.path, job.fileTime, job.limits);
  const iterators: Iterator<ImportedEvent>[] = second.plan.sessions.map((session) =>
    session.events[Symbol.iterator](),
  );
  let index = 0;
  let sent = 0;
  return {
    next(maxEvents: number): EventBatch {
      const session = index;
      const events = iterators[session];
      const taken = events ? takeEvents(events, maxEvents) : { json: '[]', count: 0, ended: true };
      sent += taken.count;
      if (taken.ended) index++;
      const last = index >= iterators.length;
      if (last) {
        second.close();
        if (sent !== eventCount || second.plan.sessions.length !== sessions.length) {
          throw new TransferError(
            'invalid-input',
            `The file changed while it was being imported (${eventCount} events, then ${sent}).`,
          );
        }
      }
      return {
        type: 'batch',
        session,
        events: encodeEventBatch(taken.json),
        count: taken.count,
        done: job.size / 2 + (job.size / 2) * (sent / Math.max(1, eventCount)),
        messageCount: taken.ended ? (second.plan.sessions[session]?.counter.messages ?? 0) : null,
        last,
      };
    },
    close: () => second.close(),
  };
}
