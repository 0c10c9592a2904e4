import { parentPort, workerData } from 'node:worker_threads';
import { runCheckpointJob, type CheckpointJob } from '../checkpoint-job';

/** Entry of the store's checkpointing thread (started by checkpoint-thread.ts). */
if (!parentPort) throw new Error('checkpoint-worker runs only as a worker thread.');
runCheckpointJob(parentPort, workerData as CheckpointJob);
