import { BROADCAST, MESSAGE_KINDS, USER, type TokenUsage } from '@shared/domain';
import { agentName } from '../import/build-events';
import type { AttributeReader } from './attribute-reader';
import { isAgentId } from './classify';
import type { Attributes } from './span';

/** Attributes that name an agent; read where the span's agent was decided (SpanIndex). */
export const AGENT_KEYS = [
  'gen_ai.agent.name',
  'agent.name',
  'graph.node.name',
  'graph.node.id',
  'traceloop.entity.name',
];
export const MODEL_KEYS = ['gen_ai.request.model', 'gen_ai.response.model', 'llm.model_name'];
export const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system'];
export const MESSAGE_KINDS_SET: ReadonlySet<string> = new Set(MESSAGE_KINDS);
/** Attributes a Fleetscope export adds to say who an agent is (read where the agent is decided). */
export const FLEETSCOPE_AGENT_KEYS = ['fleetscope.agent.id', 'fleetscope.agent.team'];
/** Events of a span that map to something of their own (the message events are read with it). */
export const HANDLED_EVENTS = new Set(['exception', 'fleetscope.handoff']);

/** A participant named in a trace: the user and "everyone" as they are, others as agent names. */
export function participant(name: string): string {
  if (name === USER || name === BROADCAST || name === 'system') return name;
  return agentName(name);
}

/**
 * A participant named by a Fleetscope export's own attributes (`fleetscope.message.to`, its
 * handoff events): agent ids keep their nested team path (`team/agent`).
 */
export function fleetscopeParticipant(name: string): string {
  return isAgentId(name) ? name : participant(name);
}

/** Token usage from the GenAI, OpenLLMetry and OpenInference attributes, when a count is there. */
export function readUsage(reader: AttributeReader): TokenUsage | undefined {
  const prompt = reader.count(
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.prompt_tokens',
    'llm.token_count.prompt',
    'llm.usage.prompt_tokens',
  );
  const completion = reader.count(
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'llm.usage.completion_tokens',
  );
  for (const key of [
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.prompt_tokens',
    'llm.token_count.prompt',
    'llm.usage.prompt_tokens',
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'llm.usage.completion_tokens',
    'llm.token_count.total',
    'llm.usage.total_tokens',
  ])
    reader.use(key);
  if (prompt === undefined && completion === undefined) return undefined;
  const usage: TokenUsage = { prompt: prompt ?? 0, completion: completion ?? 0 };
  // Cached and reasoning tokens as the GenAI conventions, their older names, OpenInference and
  // Fleetscope's own export name them; the cost and time to first token only from a Fleetscope export.
  const cached = reader.count(
    'gen_ai.usage.cache_read.input_tokens',
    'gen_ai.usage.input_tokens.cached',
    'gen_ai.usage.cache_read_input_tokens',
    'llm.token_count.prompt_details.cache_read',
  );
  const reasoning = reader.count(
    'fleetscope.usage.reasoning_tokens',
    'gen_ai.usage.output_tokens.reasoning',
    'gen_ai.usage.reasoning_tokens',
    'llm.token_count.completion_details.reasoning',
  );
  const model = reader.text('gen_ai.response.model', 'llm.response.model');
  const firstTokenMs = reader.count('fleetscope.usage.first_token_ms');
  const durationMs = reader.count('fleetscope.usage.duration_ms');
  const cost = reader.first('fleetscope.usage.cost_usd');
  if (cached !== undefined) usage.cached = Math.min(cached, usage.prompt);
  if (reasoning !== undefined) usage.reasoning = Math.min(reasoning, usage.completion);
  if (model !== undefined && model !== '') usage.model = model.slice(0, 200);
  if (firstTokenMs !== undefined) usage.firstTokenMs = firstTokenMs;
  if (durationMs !== undefined) usage.durationMs = durationMs;
  if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) usage.cost = cost;
  return usage;
}

/** Attributes as JSON the event schema accepts (no NaN or Infinity). */
export function jsonSafe(attributes: Attributes): Attributes {
  return JSON.parse(
    JSON.stringify(attributes, (_key, value: unknown) =>
      typeof value === 'number' && !Number.isFinite(value) ? String(value) : value,
    ),
  ) as Attributes;
}
