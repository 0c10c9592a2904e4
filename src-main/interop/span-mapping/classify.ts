import { stringify } from './attribute-reader';
import type { TraceSpan } from './span';

/**
 * What a span is to Fleetscope:
 * - `llm`: a model call (GenAI chat / text_completion / generate_content; OpenInference LLM;
 *   spans carrying prompt and completion attributes or message events);
 * - `agent`: an agent's invocation or creation (GenAI invoke_agent / create_agent; OpenInference
 *   AGENT; Traceloop agent);
 * - `tool`: a tool's execution; `handoff`: control passing to another agent;
 * - `other`: anything else (HTTP calls, chains, retrievals): kept as meta and counted.
 */
export type SpanRole = 'llm' | 'agent' | 'tool' | 'handoff' | 'other';

const LLM_OPERATIONS = new Set([
  'chat',
  'text_completion',
  'generate_content',
  'completion',
  'call_llm',
  'responses',
]);
const AGENT_OPERATIONS = new Set(['invoke_agent', 'create_agent']);

/** Attributes read to classify a span; they count as mapped. */
export const CLASSIFYING_KEYS = [
  'gen_ai.operation.name',
  'openinference.span.kind',
  'traceloop.span.kind',
  'llm.request.type',
] as const;

function text(span: TraceSpan, key: string): string | undefined {
  const value = span.attributes[key];
  return typeof value === 'string' ? value : undefined;
}

function hasPrefix(span: TraceSpan, prefix: string): boolean {
  return Object.keys(span.attributes).some((key) => key.startsWith(prefix));
}

export function classify(span: TraceSpan): SpanRole {
  const operation = text(span, 'gen_ai.operation.name');
  if (operation !== undefined) {
    if (LLM_OPERATIONS.has(operation)) return 'llm';
    if (AGENT_OPERATIONS.has(operation)) return 'agent';
    if (operation === 'execute_tool') return 'tool';
  }
  const openInference = text(span, 'openinference.span.kind')?.toUpperCase();
  if (openInference === 'LLM') return 'llm';
  if (openInference === 'AGENT') return 'agent';
  if (openInference === 'TOOL') return /^handoff to /i.test(span.name) ? 'handoff' : 'tool';
  const traceloop = text(span, 'traceloop.span.kind');
  if (traceloop === 'agent') return 'agent';
  if (traceloop === 'tool') return 'tool';
  const requestType = text(span, 'llm.request.type');
  if (requestType === 'chat' || requestType === 'completion') return 'llm';
  if (
    hasPrefix(span, 'gen_ai.prompt.') ||
    hasPrefix(span, 'gen_ai.completion.') ||
    'gen_ai.input.messages' in span.attributes ||
    'gen_ai.output.messages' in span.attributes ||
    span.events.some((event) =>
      /^gen_ai\.(system|user|assistant|tool)\.message$|^gen_ai\.choice$/.test(event.name),
    )
  ) {
    return 'llm';
  }
  if (operation === undefined && /^handoff to /i.test(span.name)) return 'handoff';
  return 'other';
}

/** One agent name (as `agentNameSchema` allows), or nested team path of them (`team/agent`). */
const AGENT_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}(\/[A-Za-z][A-Za-z0-9_-]{0,63}){0,15}$/;

/**
 * The agent id a Fleetscope export gave the span (`fleetscope.agent.id`, nested team path
 * included), when it is one; other tools' names go through `agentName` and lose their slashes.
 */
export function fleetscopeAgentId(span: TraceSpan): string | null {
  const value = span.attributes['fleetscope.agent.id'];
  return typeof value === 'string' && AGENT_ID.test(value) ? value : null;
}

/** An agent id as Fleetscope writes it (`a`, `team/a`): true for the ones it keeps as they are. */
export function isAgentId(value: string): boolean {
  return AGENT_ID.test(value);
}

/** The agent a span names itself, without looking at its ancestors. */
export function ownAgentName(span: TraceSpan, role: SpanRole): string | null {
  for (const key of ['gen_ai.agent.name', 'agent.name', 'graph.node.name', 'graph.node.id']) {
    const value = span.attributes[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  if (role !== 'agent') return null;
  const entity = text(span, 'traceloop.entity.name');
  if (entity?.trim()) return entity.trim();
  // "invoke_agent Researcher", "create_agent [any_agent]", OpenInference's bare agent names.
  const name = span.name
    .replace(/^(invoke_agent|create_agent)\s*/, '')
    .replace(/^\[(.*)\]$/, '$1')
    .trim();
  return name || null;
}

/**
 * The conversation a span belongs to by its own attributes: `gen_ai.conversation.id`,
 * OpenInference's `session.id`, Traceloop's association property; null when it names none.
 */
export function ownSessionKey(span: TraceSpan): string | null {
  for (const key of [
    'gen_ai.conversation.id',
    'session.id',
    'traceloop.association.properties.session_id',
    'langfuse.session.id',
  ]) {
    const value = span.attributes[key];
    if (value !== undefined && value !== null && stringify(value).trim())
      return `conversation:${stringify(value).trim()}`;
  }
  return null;
}

export const SESSION_KEY_ATTRIBUTES = [
  'gen_ai.conversation.id',
  'session.id',
  'traceloop.association.properties.session_id',
  'langfuse.session.id',
] as const;

/** The agent name given to spans no agent span encloses: the service's name, else "assistant". */
export function defaultAgentName(span: TraceSpan): string {
  const service = span.resource['service.name'];
  if (typeof service === 'string' && service.trim() && !service.startsWith('unknown_service'))
    return service.trim();
  return 'assistant';
}
