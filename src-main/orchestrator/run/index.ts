export { startRun } from './run-session';
export {
  RunManager,
  DEFAULT_KEEP_FINISHED,
  type RunDefaults,
  type RunManagerOptions,
  type RunRequest,
} from './run-manager';
export type { ProviderOverrides, ResumeFrom, RunHandle, RunSummary, StartRunOptions } from './run-types';
export type { HumanRequest } from './human-desk';
export { applyProviderOverrides } from './overrides';
