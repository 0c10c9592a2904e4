/** The agent runtime: start runs of a fleet, control them, and receive their events. */
export type { EventSink } from './sink';
export {
  startRun,
  RunManager,
  DEFAULT_KEEP_FINISHED,
  applyProviderOverrides,
  type ProviderOverrides,
  type RunDefaults,
  type RunManagerOptions,
  type RunHandle,
  type RunRequest,
  type RunSummary,
  type StartRunOptions,
  type HumanRequest,
  type ResumeFrom,
} from './run';
export { agentViewOf, foldRuntime, type RuntimeSnapshot, type TeamSnapshot } from './resume';
export { attributedChatMessages, type AttributedTurn } from './agents';
export { MemorySink, JsonlFileSink } from './sinks';
export {
  ToolRegistry,
  ToolError,
  createBuiltinTools,
  evaluateExpression,
  type Tool,
  type ToolContext,
} from './tools';
export {
  buildCondition,
  effectiveTermination,
  type StopResult,
  type TerminationCondition,
} from './conditions';
export { SecretMasker } from './runtime/secret-masker';
