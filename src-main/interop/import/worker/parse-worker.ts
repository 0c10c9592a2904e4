import { parentPort, workerData } from 'node:worker_threads';
import type { ParseJob } from './protocol';
import { runParseJob } from './run-parse-job';
import { runInBackground } from './thread-priority';

/**
 * Entry of the import's parsing thread (started by worker-client.ts). Parsing untrusted files
 * here keeps the main thread's event loop and heap out of reach of hostile input.
 */
if (!parentPort) throw new Error('parse-worker runs only as a worker thread.');
// Parsing gives way to the threads a user waits on (the main thread, the writing thread).
runInBackground();
runParseJob(parentPort, workerData as ParseJob);
