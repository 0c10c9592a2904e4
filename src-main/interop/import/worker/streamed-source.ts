import type { ImportedEvent } from '../../../history/ports';
import { encodeEventBatch } from '../../../history/event-batch-text';
import { ExportStream } from '../fleetscope-stream';
import { FastPathDeclined } from '../json-splitter';
import { openImportPlan, type OpenedPlan } from '../plan-import';
import { TransferError } from '../transfer-error';
import { takeEvents, type BatchSource } from './batch-source';
import type { EventBatch, JobPort, ParseJob } from './protocol';

/**
 * Our own export, streamed: `planned` goes out after the header, and every batch is checked as
 * it is read, so writing starts at once and reading overlaps it. Batches come from the fast
 * reader (ExportStream); if it declines part-way (something it does not vouch for), the exact
 * reader takes over on the same file, skipping the events already handed out, and accepts or
 * refuses the rest exactly as it would have from the start. Progress: the file position.
 */
export function streamedSource(port: JobPort, job: ParseJob, stream: ExportStream): BatchSource {
  port.postMessage({ type: 'planned', format: 'fleetscope-json', sessions: [{ meta: stream.meta }] });
  let exact: ExactReader | null = null;
  return {
    next(maxEvents: number): EventBatch {
      if (!exact) {
        try {
          const batch = stream.next(maxEvents);
          if (batch.done) stream.close();
          return toBatch(batch.events, batch.position, batch.done ? stream.messages : null);
        } catch (error) {
          stream.close();
          if (!(error instanceof FastPathDeclined)) throw error;
          exact = new ExactReader(job, stream.handedOut);
        }
      }
      const taken = exact.take(maxEvents);
      return {
        type: 'batch',
        session: 0,
        events: encodeEventBatch(taken.json),
        count: taken.count,
        done: exact.position,
        messageCount: taken.ended ? exact.messages : null,
        last: taken.ended,
      };
    },
    close() {
      stream.close();
      exact?.close();
    },
  };
}

function toBatch(events: ImportedEvent[], position: number, messageCount: number | null): EventBatch {
  return {
    type: 'batch',
    session: 0,
    events: encodeEventBatch(JSON.stringify(events)),
    count: events.length,
    done: position,
    messageCount,
    last: messageCount !== null,
  };
}

/** The exact reader (plan-import.ts) on the rest of a streamed export. */
class ExactReader {
  private readonly opened: OpenedPlan;
  private readonly events: Iterator<ImportedEvent>;
  private readonly counter: { messages: number };
  position = 0;

  constructor(job: ParseJob, skip: number) {
    this.opened = openImportPlan(job.path, job.fileTime, job.limits, (bytes) => {
      this.position = bytes;
    });
    const [session, ...others] = this.opened.plan.sessions;
    if (this.opened.plan.format !== 'fleetscope-json' || !session || others.length > 0) {
      this.opened.close();
      throw changed();
    }
    this.counter = session.counter;
    this.events = session.events[Symbol.iterator]();
    for (let skipped = 0; skipped < skip; skipped++) {
      if (this.events.next().done) {
        this.opened.close();
        throw changed();
      }
    }
  }

  get messages(): number {
    return this.counter.messages;
  }

  take(maxEvents: number): ReturnType<typeof takeEvents> {
    const taken = takeEvents(this.events, maxEvents);
    if (taken.ended) this.close();
    return taken;
  }

  close(): void {
    this.opened.close();
  }
}

function changed(): TransferError {
  return new TransferError('invalid-input', 'The file changed while it was being imported.');
}
