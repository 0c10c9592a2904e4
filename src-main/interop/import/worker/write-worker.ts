import { parentPort } from 'node:worker_threads';
import { runWriteJob } from '../../../history/thread-write-job';

/**
 * Entry of the import's writing thread (started by write-thread.ts): the import's events are
 * written on a connection of its own, so the main thread's event loop stays free while they are.
 */
if (!parentPort) throw new Error('write-worker runs only as a worker thread.');
runWriteJob(parentPort);
