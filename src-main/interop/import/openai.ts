import { z } from 'zod';
import { USER, type TeamSpec, type TokenUsage, type ToolCall } from '@shared/domain';
import { agentName } from './build-events';
import type { ForeignConversation, ForeignMessage } from './conversation';
import { TransferError } from './transfer-error';
import { transferTarget } from './transfer-tools';
import { isRecord, jsonPath, parseAt, titleFrom } from './validate';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const contentSchema = z.union([
  z.string(),
  z.null(),
  z.array(z.union([z.object({ type: z.string(), text: z.string().optional() }), z.string()])),
]);

const tokenCount = z.number().int().nonnegative();

/**
 * A reply's usage as the chat-completions API reports it (`prompt_tokens`, `completion_tokens`
 * and their details), or as the Responses API names it (`input_tokens`, `output_tokens`).
 */
const usageSchema = z.object({
  prompt_tokens: tokenCount.optional(),
  completion_tokens: tokenCount.optional(),
  input_tokens: tokenCount.optional(),
  output_tokens: tokenCount.optional(),
  prompt_tokens_details: z.object({ cached_tokens: tokenCount.nullish() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: tokenCount.nullish() }).nullish(),
  input_tokens_details: z.object({ cached_tokens: tokenCount.nullish() }).nullish(),
  output_tokens_details: z.object({ reasoning_tokens: tokenCount.nullish() }).nullish(),
});

const openAiMessageSchema = z.object({
  role: z.enum(ROLES),
  content: contentSchema.optional(),
  name: z.string().optional(),
  tool_calls: z
    .array(
      z.object({
        id: z.string().min(1),
        function: z.object({ name: z.string().min(1), arguments: z.string() }),
      }),
    )
    .nullish(),
  tool_call_id: z.string().optional(),
  /** The legacy single function call (role "function" answers it). */
  function_call: z.object({ name: z.string().min(1), arguments: z.string() }).nullish(),
  /** Kept beside an assistant message by loggers that store the whole reply. */
  usage: usageSchema.nullish(),
  model: z.string().max(200).nullish(),
});
type OpenAiMessage = z.infer<typeof openAiMessageSchema>;

/** Where the message array sits: the document, `.messages`, or an Invariant `.trace(.trace)`. */
export function locateOpenAiMessages(value: unknown): { messages: unknown[]; path: string } | null {
  const candidates: Array<[unknown, string]> = [[value, '$']];
  if (isRecord(value)) {
    candidates.push([value.messages, '$.messages'], [value.trace, '$.trace']);
    if (isRecord(value.trace)) candidates.push([value.trace.trace, '$.trace.trace']);
  }
  for (const [candidate, path] of candidates) {
    if (!Array.isArray(candidate) || candidate.length === 0) continue;
    const first: unknown = candidate[0];
    if (isRecord(first) && typeof first.role === 'string') return { messages: candidate, path };
  }
  return null;
}

/**
 * An assistant message's usage, priced later by its model (the message's, else the file's) and
 * provider (the file's `provider`, else "openai", the API the format comes from); undefined when
 * the message carries no token count.
 */
function usageOf(
  source: OpenAiMessage,
  defaults: { model: string | null; provider: string },
): TokenUsage | undefined {
  const usage = source.usage;
  if (!usage) return undefined;
  const prompt = usage.prompt_tokens ?? usage.input_tokens;
  const completion = usage.completion_tokens ?? usage.output_tokens;
  if (prompt === undefined && completion === undefined) return undefined;
  const result: TokenUsage = { prompt: prompt ?? 0, completion: completion ?? 0 };
  const cached =
    usage.prompt_tokens_details?.cached_tokens ?? usage.input_tokens_details?.cached_tokens ?? undefined;
  const reasoning =
    usage.completion_tokens_details?.reasoning_tokens ??
    usage.output_tokens_details?.reasoning_tokens ??
    undefined;
  if (cached) result.cached = Math.min(cached, result.prompt);
  if (reasoning) result.reasoning = Math.min(reasoning, result.completion);
  const model = source.model ?? defaults.model;
  if (model) result.model = model;
  result.provider = defaults.provider;
  return result;
}

function textOf(content: OpenAiMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => (typeof part === 'string' ? part : (part.text ?? `[${part.type}]`)))
    .join('\n');
}

/**
 * An OpenAI chat-completions message list. The assistant is one agent unless messages carry a
 * `name`, or Swarm-style transfer calls show handoffs: then the agent changes after each
 * transfer's tool reply. The first agent is the one transfers go back to (the triage agent).
 */
export function importOpenAiMessages(value: unknown, fallbackTime: number): ForeignConversation {
  const found = locateOpenAiMessages(value);
  if (!found)
    throw new TransferError('invalid-input', 'Invalid file at $: expected an OpenAI message array.');
  const parsed = found.messages.map((item, index) =>
    parseAt(openAiMessageSchema, item, jsonPath(found.path, index)),
  );
  const calls = parsed.flatMap((message) => message.tool_calls ?? []);
  const backTo = calls.find((call) => call.function.name.startsWith('transfer_back_to_'))?.function.name;
  let current = backTo ? (transferTarget(backTo) ?? 'assistant') : 'assistant';
  const start = current;
  const handoffs = new Map<string, Set<string>>();
  const pending = new Map<string, { name: string; target: string | null }>();
  const agents = new Set<string>();
  const messages: ForeignMessage[] = [];
  const systemPrompts = new Map<string, string>();
  let legacyCalls = 0;
  const defaults = {
    model: isRecord(value) && typeof value.model === 'string' ? value.model.slice(0, 200) : null,
    provider:
      isRecord(value) && typeof value.provider === 'string' && value.provider.trim() !== ''
        ? value.provider.trim().slice(0, 200)
        : 'openai',
  };
  for (const source of parsed) {
    const content = textOf(source.content);
    if (source.role === 'assistant') {
      if (source.name) current = agentName(source.name);
      agents.add(current);
      const toolCalls: ToolCall[] = (source.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      }));
      if (source.function_call)
        toolCalls.push({ id: `function-call-${++legacyCalls}`, ...source.function_call });
      for (const call of toolCalls)
        pending.set(call.id, { name: call.name, target: transferTarget(call.name) });
      const kind = toolCalls.length > 0 ? 'function' : 'text';
      // Tool calls are the agent's own work: addressed to itself, never to the user.
      const to = toolCalls.length > 0 ? current : USER;
      const usage = usageOf(source, defaults);
      messages.push({
        from: current,
        to,
        kind,
        content,
        ...(toolCalls.length ? { toolCalls } : {}),
        ...(usage ? { usage } : {}),
      });
    } else if (source.role === 'tool' || source.role === 'function') {
      const callId =
        source.tool_call_id ?? [...pending.keys()].find((id) => pending.get(id)?.name === source.name);
      const call = callId === undefined ? undefined : pending.get(callId);
      if (callId !== undefined) pending.delete(callId);
      const result = {
        callId: callId ?? 'unknown',
        name: call?.name ?? source.name ?? 'unknown',
        content,
        isError: false,
      };
      const message: ForeignMessage = {
        from: current,
        to: current,
        kind: 'tool',
        content: '',
        toolResults: [result],
      };
      if (call?.target && call.target !== current) {
        message.handoffTo = call.target;
        handoffs.set(current, (handoffs.get(current) ?? new Set()).add(call.target));
        agents.add(call.target);
        messages.push(message);
        current = call.target;
        continue;
      }
      messages.push(message);
    } else if (source.role === 'user') {
      messages.push({ from: USER, to: current, kind: 'text', content });
    } else {
      // A system or developer prompt configures the agent it was sent to (its first one counts).
      const agent = source.name ? agentName(source.name) : current;
      if (content && !systemPrompts.has(agent)) systemPrompts.set(agent, content);
    }
  }
  const team: TeamSpec =
    handoffs.size > 0
      ? {
          pattern: 'swarm',
          start,
          handoffs: Object.fromEntries([...handoffs].map(([from, to]) => [from, [...to]])),
        }
      : { pattern: 'sequential', order: [...agents] };
  const task = (messages.find((message) => message.from === USER) ?? messages[0])?.content.trim() ?? '';
  const wrapperName = isRecord(value) && typeof value.name === 'string' ? value.name : '';
  return {
    title: wrapperName || titleFrom(task, 'Imported OpenAI conversation'),
    task,
    agents: [...agents],
    team,
    messages,
    systemPrompts: Object.fromEntries(systemPrompts),
    stopReason: 'Imported from an OpenAI message list; the conversation ended with its last message.',
    createdAt: fallbackTime,
  };
}
