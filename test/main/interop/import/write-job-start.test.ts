import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeEventBatch } from '../../../../src-main/history/event-batch-text';
import { runWriteJob } from '../../../../src-main/history/thread-write-job';
import type { WriteReport, WriteRequest } from '../../../../src-main/history/thread-write-protocol';
import { openTempHistory } from '../../../helpers/temp-store';

/** A writing thread's job run on this thread's side of a channel: what it reports, and when its port closes. */
function writingJob(): {
  send: (request: WriteRequest) => void;
  reports: WriteReport[];
  closed: Promise<void>;
} {
  const { port1, port2 } = new MessageChannel();
  const reports: WriteReport[] = [];
  port1.on('message', (report: WriteReport) => reports.push(report));
  const closed = new Promise<void>((resolve) => port1.once('close', () => resolve()));
  runWriteJob(port2 as MessagePort);
  return { send: (request) => port1.postMessage(request), reports, closed };
}

describe("an import's writing thread before and after its job", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('refuses events sent before its job, and ends', async () => {
    const job = writingJob();
    job.send({ type: 'events', session: 0, events: encodeEventBatch('[]'), done: 0 });
    await job.closed;
    expect(job.reports).toEqual([
      { type: 'failed', message: "The import's writing thread was given events before its job." },
    ]);
  });

  it('ends without a word when closed before it had a job (booted, then not needed)', async () => {
    const job = writingJob();
    job.send({ type: 'close' });
    await job.closed;
    expect(job.reports).toEqual([]);
  });

  it('refuses a second job, and ends', async () => {
    const history = openTempHistory({});
    cleanups.push(history.cleanup);
    const session = history.store.beginImport({
      title: 'twice',
      task: 'job',
      fleetName: 'f',
      source: 'test',
      createdAt: 1,
      tags: [],
    });
    const store = session.thread?.store;
    if (!store) throw new Error('A store file gives a writing thread its store.');
    const job = writingJob();
    const start: WriteRequest = {
      type: 'start',
      job: { store, sessions: [{ id: session.sessionId, createdAt: 1 }] },
    };
    job.send(start);
    job.send(start);
    await job.closed;
    expect(job.reports).toEqual([
      { type: 'failed', message: "The import's writing thread was given a second job." },
    ]);
    session.abort();
  });
});
