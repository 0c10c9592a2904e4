import type { CheckedFleet, RunEvent, SessionStatus, UsagePricer } from '@shared/domain';
import type { ModelClientFactory, ProviderAddress } from '../../llm';
import type { EventSink } from '../sink';
import type { McpToolset, ToolRegistry } from '../tools';
import type { RuntimeSnapshot } from '../resume/runtime-fold';
import type { HumanRequest } from './human-desk';

/** Where a stored session goes on from: its state folded from its events (see foldRuntime). */
export interface ResumeFrom {
  snapshot: RuntimeSnapshot;
  /** Follow-up context lines sent with the task (none: the conversation resumes as it stood). */
  context?: Record<string, string>;
  /** Milliseconds since the session started at which the continuation begins (default: its last event's). */
  startT?: number;
}

/** Replaces parts of every LLM agent's (and the selector's) provider, e.g. to use a local server. */
export interface ProviderOverrides {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
}

export interface StartRunOptions {
  /**
   * Run as given, checked once by `checkFleetToRun` against this run's tool names (`tools`):
   * provider overrides and message caps are the caller's to apply before the check.
   */
  fleet: CheckedFleet;
  /** What that check warned about, as `path: message` lines (the handle's `warnings`). */
  warnings?: readonly string[];
  task: string;
  sink: EventSink;
  /** Defaults to the first line of the task. */
  title?: string;
  /** Where `apiKeyEnv` names are looked up (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * More values to mask in everything the run records and relays (e.g. keys from a vault). The
   * keys the fleet's providers read from `env` are masked without being listed here; values
   * shorter than 8 characters are ignored.
   */
  secrets?: readonly string[];
  /** Folder the read_file tool may read; null (default) disables it. */
  fileRoot?: string | null;
  /**
   * Prices each model call as it is recorded (the app's: Settings' price overrides, then the price
   * table); without it the store prices calls by the table when it writes them.
   */
  pricer?: UsagePricer;
  /** Aborting it cancels the run like `stop()`. */
  signal?: AbortSignal;
  /** Start paused: nothing runs until `resume()` or `step()`. */
  startPaused?: boolean;
  /** Tool registry (default: the built-ins); the run adds its MCP servers' tools to a copy. */
  tools?: ToolRegistry;
  /** Tool calls that need a person's approval run without asking (default false: they ask). */
  approveAll?: boolean;
  /** Called with the run's MCP servers before they start (tests read their process ids). */
  onToolServers?: (toolset: McpToolset) => void;
  /** SDK retries for 429/5xx before streaming starts (default 2). */
  maxRetries?: number;
  /** Milliseconds without data before a streaming reply is given up (default 30 000). */
  idleTimeoutMs?: number;
  /** Model clients (default: OpenAI-compatible clients built from the fleet's providers). */
  models?: ModelClientFactory;
  /**
   * Where each provider connects and sends its key, for the default model clients (default: the
   * provider's own baseUrl; one without is refused).
   */
  address?: ProviderAddress;
  sessionId?: string;
  parentSessionId?: string | null;
  forkSeq?: number | null;
  /**
   * Go on with a stored session (`sessionId` required) instead of starting one: the run appends
   * `session.continued` and its events to it. `task` is the follow-up; empty resumes where the
   * conversation stopped.
   */
  resume?: ResumeFrom;
}

/** How a run (or a continuation) ended. */
export interface RunSummary {
  sessionId: string;
  status: SessionStatus;
  /** The condition that fired (`max-messages`, `text-mention`, ...), `team-finished`, `cancelled` or `error`. */
  stopReason: string;
  /** A sentence a person understands. */
  detail: string;
  /** Messages recorded in the session so far (the task included). */
  messageCount: number;
  tokens: { prompt: number; completion: number; total: number };
  /** Milliseconds since the session started. */
  durationMs: number;
}

export interface RunHandle {
  readonly sessionId: string;
  readonly status: SessionStatus;
  /** Warnings found when the fleet was checked (e.g. the default message cap applies). */
  readonly warnings: readonly string[];
  /** Resolves when the current run or continuation ends; never rejects. */
  readonly done: Promise<RunSummary>;
  /** Pauses before the next round (the current turn finishes). */
  pause(): void;
  resume(): void;
  /** Runs one round while paused, then pauses again; resolves when that round ended. */
  step(): Promise<void>;
  /** Cancels now: in-flight model calls are aborted; the run ends `stopped` / `cancelled`. */
  stop(): void;
  /** Ends the run after the current turn (the `external` condition). */
  requestStop(): void;
  /** Answers a human-input request; false when no such request is open. */
  answer(requestId: string, text: string): boolean;
  pendingHumanRequests(): HumanRequest[];
  /**
   * Continues a finished run; rejects while the run is still going. With a task (or context) the
   * owner sends it as a new task message; without one (empty or blank) the conversation resumes
   * where it stopped: the next speaker goes on and no task message is sent.
   */
  continueWith(task?: string, context?: Record<string, string>): Promise<RunSummary>;
  onDidEvent(listener: (event: RunEvent) => void): () => void;
  /**
   * Lets go of a finished run's conversation and listeners; it can no longer be continued (its
   * session stays in the store). Ignored while the run is going.
   */
  release(): void;
}
