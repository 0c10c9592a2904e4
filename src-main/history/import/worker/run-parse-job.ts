import type { ImportedEvent } from '../../ports';
import { openImportPlan } from '../plan-import';
import { TransferError } from '../transfer-error';
import type { ParseJob, ParseReport, PullRequest } from './protocol';

/** The approximate JSON size at which a batch is cut before it has `maxEvents` events. */
export const BATCH_CHARS = 256 * 1024;

export interface JobPort {
  postMessage(report: ParseReport): void;
  on(event: 'message', listener: (request: PullRequest) => void): unknown;
}

/**
 * The parsing thread's work. Pass one reads the whole file, checking and converting every event
 * and counting them, and keeps nothing; only when it succeeds is `planned` sent, so bad input
 * never reaches the store. Pass two reads the file again and hands the converted events over in
 * batches, one per `pull` of the size the main thread asks for (it asks for the next while it
 * writes the last), so at most about two batches are in flight.
 */
export function runParseJob(port: JobPort, job: ParseJob): void {
  try {
    let lastReport = 0;
    const first = openImportPlan(job.path, job.fileTime, job.limits, (bytes) => {
      lastReport = bytes;
      port.postMessage({ type: 'read', bytes });
    });
    let eventCount = 0;
    try {
      const events = first.plan.events[Symbol.iterator]();
      while (!events.next().done) eventCount++;
    } finally {
      first.close();
    }
    if (lastReport === 0) port.postMessage({ type: 'read', bytes: 0 });
    const { format, meta } = first.plan;
    const messageCount = first.plan.counter.messages;
    port.postMessage({ type: 'planned', format, meta, messageCount, eventCount });

    const second = openImportPlan(job.path, job.fileTime, job.limits);
    const events = second.plan.events[Symbol.iterator]();
    let sent = 0;
    port.on('message', (request) => {
      if (request.type !== 'pull') return;
      try {
        const batch = nextBatch(events, request.maxEvents);
        sent += batch.events.length;
        if (batch.last) {
          second.close();
          if (sent !== eventCount) {
            throw new TransferError(
              'invalid-input',
              `The file changed while it was being imported (${eventCount} events, then ${sent}).`,
            );
          }
        }
        port.postMessage({ type: 'batch', ...batch });
      } catch (error) {
        second.close();
        port.postMessage(failure(error));
      }
    });
  } catch (error) {
    port.postMessage(failure(error));
  }
}

function nextBatch(
  events: Iterator<ImportedEvent>,
  maxEvents: number,
): { events: ImportedEvent[]; last: boolean } {
  const batch: ImportedEvent[] = [];
  let chars = 0;
  while (batch.length < Math.max(1, maxEvents) && chars < BATCH_CHARS) {
    const step = events.next();
    if (step.done) return { events: batch, last: true };
    batch.push(step.value);
    chars += JSON.stringify(step.value).length;
  }
  return { events: batch, last: false };
}

function failure(error: unknown): ParseReport {
  if (error instanceof TransferError) return { type: 'failed', code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'failed', code: 'internal', message };
}
