import {
  checkFleetToRun,
  fleetSchema,
  type AgentSpec,
  type Fleet,
  type FleetInput,
  type FleetToRun,
  type RunEvent,
  type ScriptedReply,
} from '@shared/domain';
import {
  createBuiltinTools,
  MemorySink,
  startRun,
  type RunHandle,
  type StartRunOptions,
  type ToolRegistry,
} from '../../src-main/orchestrator';

type AgentInput = FleetInput['agents'][number];

/** A fleet with defaults applied, as the runtime receives it. */
export function fleet(input: Omit<FleetInput, 'version' | 'name'> & { name?: string }): Fleet {
  return fleetSchema.parse({ version: 1, name: 'test fleet', ...input });
}

/** A fleet checked as the app checks one before it runs: its rules and the tools of `tools`. */
export function checked(input: Fleet, tools: ToolRegistry = createBuiltinTools()): FleetToRun {
  return checkFleetToRun(input, tools.names());
}

export function scripted(
  name: string,
  replies: Array<string | ScriptedReply>,
  extra: Partial<AgentInput> = {},
): AgentInput {
  const script = replies.map((reply) => (typeof reply === 'string' ? { content: reply } : reply));
  return { name, type: 'scripted', script, ...extra };
}

/** An LLM agent pointed at the stub server. */
export function llm(name: string, baseUrl: string, extra: Partial<AgentInput> = {}): AgentInput {
  return { name, type: 'llm', provider: { id: 'custom', baseUrl, model: 'stub-model' }, ...extra };
}

export interface StartedRun {
  handle: RunHandle;
  sink: MemorySink;
  events: RunEvent[];
}

export type RunOptions = Omit<StartRunOptions, 'sink' | 'fleet' | 'warnings'> & {
  fleet: Fleet;
  sink?: MemorySink;
};

/**
 * Checks the fleet (FleetInvalidError when it cannot run) and starts a run with a memory sink and
 * short provider timeouts; `events` fills as they happen.
 */
export function run(options: RunOptions): StartedRun {
  const sink = options.sink ?? new MemorySink();
  const toRun = checked(options.fleet, options.tools);
  const handle = startRun({ maxRetries: 1, idleTimeoutMs: 2_000, env: {}, ...options, ...toRun, sink });
  const events: RunEvent[] = [];
  handle.onDidEvent((event) => events.push(event));
  return { handle, sink, events };
}

export function ofKind<K extends RunEvent['kind']>(
  events: readonly RunEvent[],
  kind: K,
): Extract<RunEvent, { kind: K }>[] {
  return events.filter((event): event is Extract<RunEvent, { kind: K }> => event.kind === kind);
}

/** Completed messages as `from>to: content` lines, easy to compare. */
export function transcript(events: readonly RunEvent[]): string[] {
  return ofKind(events, 'message.completed').map(
    ({ payload: { message } }) => `${message.from}>${message.to}: ${message.content}`,
  );
}

export type { AgentSpec };
