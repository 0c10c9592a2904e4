import type { ImportedEvent } from '../../ports';
import { openImportPlan } from '../plan-import';
import { TransferError } from '../transfer-error';
import type { ParseJob, ParseReport, PlannedSession, PullRequest } from './protocol';

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
    const sessions: PlannedSession[] = [];
    try {
      for (const session of first.plan.sessions) {
        let eventCount = 0;
        const events = session.events[Symbol.iterator]();
        while (!events.next().done) eventCount++;
        sessions.push({ meta: session.meta, messageCount: session.counter.messages, eventCount });
      }
    } finally {
      first.close();
    }
    if (lastReport === 0) port.postMessage({ type: 'read', bytes: 0 });
    port.postMessage({ type: 'planned', format: first.plan.format, sessions });
    const eventCount = sessions.reduce((sum, session) => sum + session.eventCount, 0);

    const second = openImportPlan(job.path, job.fileTime, job.limits);
    const events = new SessionEvents(second.plan.sessions.map((session) => session.events));
    let sent = 0;
    port.on('message', (request) => {
      if (request.type !== 'pull') return;
      try {
        const batch = events.nextBatch(request.maxEvents);
        sent += batch.events.length;
        if (batch.last) {
          second.close();
          if (sent !== eventCount || second.plan.sessions.length !== sessions.length) {
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

/** The events of each session in turn, cut into batches that never span two sessions. */
class SessionEvents {
  private index = 0;
  private readonly iterators: Iterator<ImportedEvent>[];

  constructor(sessions: readonly Iterable<ImportedEvent>[]) {
    this.iterators = sessions.map((events) => events[Symbol.iterator]());
  }

  nextBatch(maxEvents: number): { session: number; events: ImportedEvent[]; last: boolean } {
    const batch: ImportedEvent[] = [];
    let chars = 0;
    const session = this.index;
    const events = this.iterators[session];
    if (!events) return { session, events: batch, last: true };
    while (batch.length < Math.max(1, maxEvents) && chars < BATCH_CHARS) {
      const step = events.next();
      if (step.done) {
        this.index++;
        return { session, events: batch, last: this.index >= this.iterators.length };
      }
      batch.push(step.value);
      chars += JSON.stringify(step.value).length;
    }
    return { session, events: batch, last: false };
  }
}

function failure(error: unknown): ParseReport {
  if (error instanceof TransferError) return { type: 'failed', code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'failed', code: 'internal', message };
}
