export { foldRuntime, FORKED_STOP_REASON, type RuntimeSnapshot, type TeamSnapshot } from './runtime-fold';
