import { eventBatchTransfer } from '../../../history/event-batch-text';
import { ExportStream } from '../fleetscope-stream';
import { TransferError } from '../transfer-error';
import type { BatchSource } from './batch-source';
import { checkedSource } from './checked-source';
import type { JobPort, ParseJob, ParseReport } from './protocol';
import { streamedSource } from './streamed-source';

/**
 * The parsing thread's work: our own export is streamed (streamed-source.ts), every other file
 * read and checked whole first (checked-source.ts). Then one batch per `pull` of the size the
 * main thread asks for (it asks a couple ahead of the one it writes), so only a few batches are
 * in flight.
 */
export function runParseJob(port: JobPort, job: ParseJob): void {
  let source: BatchSource;
  try {
    const stream = ExportStream.open(job.path, job.limits);
    source = stream ? streamedSource(port, job, stream) : checkedSource(port, job);
  } catch (error) {
    port.postMessage(failure(error));
    return;
  }
  // The main thread asks ahead, so pulls can come after the last batch or a failure: ignored.
  let ended = false;
  port.on('message', (request) => {
    if (request.type !== 'pull' || ended) return;
    try {
      const batch = source.next(request.maxEvents);
      ended = batch.last;
      port.postMessage(batch, eventBatchTransfer(batch.events));
    } catch (error) {
      ended = true;
      source.close();
      port.postMessage(failure(error));
    }
  });
}

function failure(error: unknown): ParseReport {
  if (error instanceof TransferError) return { type: 'failed', code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'failed', code: 'internal', message };
}
