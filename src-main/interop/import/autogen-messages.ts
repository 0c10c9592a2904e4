import { z } from 'zod';
import { BROADCAST, USER, type MessageKind, type ToolCall, type ToolResult } from '@shared/domain';
import { agentName } from './build-events';
import type { ForeignMessage } from './conversation';
import { jsonPath, parseAt } from './validate';

/** One AgentChat message as `model_dump()` writes it (0.4.x and newer). */
const autogenMessageSchema = z.object({
  source: z.string().min(1),
  type: z.string().min(1),
  content: z.unknown(),
  models_usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }).nullish(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  id: z.string().min(1).optional(),
  created_at: z.string().optional(),
  /** HandoffMessage only. */
  target: z.string().optional(),
});

const toolCallsSchema = z.array(
  z.object({ id: z.string().min(1), name: z.string().min(1), arguments: z.string() }),
);
const toolResultsSchema = z.array(
  z.object({
    content: z.unknown(),
    call_id: z.string().min(1),
    is_error: z.boolean().nullish(),
    /** Missing in 0.4.x; recovered from the matching call. */
    name: z.string().nullish(),
  }),
);

const KINDS: Record<string, MessageKind> = {
  TextMessage: 'text',
  MultiModalMessage: 'text',
  ToolCallSummaryMessage: 'text',
  ToolCallRequestEvent: 'function',
  ToolCallExecutionEvent: 'tool',
  HandoffMessage: 'handoff',
  StopMessage: 'stop',
  ThoughtEvent: 'status',
  UserInputRequestEvent: 'status',
  SelectSpeakerEvent: 'status',
  MemoryQueryEvent: 'status',
  CodeGenerationEvent: 'code',
  CodeExecutionEvent: 'result',
};

/** Streaming chunks repeat what the final message says; they are not messages of their own. */
const SKIPPED_TYPES = new Set(['ModelClientStreamingChunkEvent']);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part === 'string' ? part : '[image]')).join('\n');
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/**
 * Converts an AgentChat message list (TaskResult.messages or a manager's message_thread).
 * AgentChat has no receivers: every message is a broadcast to the group, except tool calls and
 * results, which stay on the agent that made them. Tool results are paired
 * with their calls by `call_id`, which also recovers the tool name 0.4.x leaves out.
 */
export function convertAutogenMessages(values: readonly unknown[], path: string): ForeignMessage[] {
  const toolNames = new Map<string, string>();
  const messages: ForeignMessage[] = [];
  for (const [index, value] of values.entries()) {
    const at = jsonPath(path, index);
    const source = parseAt(autogenMessageSchema, value, at);
    if (SKIPPED_TYPES.has(source.type)) continue;
    const from = agentName(source.source);
    const message: ForeignMessage = {
      from,
      to: BROADCAST,
      kind: KINDS[source.type] ?? 'text',
      content: '',
      meta: {
        autogenType: source.type,
        ...(source.metadata && Object.keys(source.metadata).length ? { metadata: source.metadata } : {}),
      },
    };
    if (source.id !== undefined) message.id = source.id;
    if (source.created_at !== undefined) {
      const time = Date.parse(source.created_at);
      if (!Number.isNaN(time)) message.at = time;
    }
    if (source.models_usage) {
      message.usage = {
        prompt: source.models_usage.prompt_tokens,
        completion: source.models_usage.completion_tokens,
      };
    }
    // Tool calls and results are the agent's own work, not said to the group.
    if (source.type === 'ToolCallRequestEvent' || source.type === 'ToolCallExecutionEvent') message.to = from;
    if (source.type === 'ToolCallRequestEvent') {
      const calls: ToolCall[] = parseAt(toolCallsSchema, source.content, jsonPath(at, 'content'));
      for (const call of calls) toolNames.set(call.id, call.name);
      message.toolCalls = calls;
    } else if (source.type === 'ToolCallExecutionEvent') {
      const results = parseAt(toolResultsSchema, source.content, jsonPath(at, 'content'));
      message.toolResults = results.map((result): ToolResult => ({
        callId: result.call_id,
        name: result.name || toolNames.get(result.call_id) || 'unknown',
        content: textOf(result.content),
        isError: result.is_error ?? false,
      }));
    } else {
      message.content = textOf(source.content);
    }
    if (source.type === 'HandoffMessage' && source.target) message.handoffTo = agentName(source.target);
    messages.push(message);
  }
  return messages;
}

/** Agents in order of first appearance, the user excluded. */
export function speakers(messages: readonly ForeignMessage[], declared: readonly string[] = []): string[] {
  const names = new Set(declared);
  for (const message of messages) if (message.from !== USER) names.add(message.from);
  names.delete(USER);
  return [...names];
}

/** The task is what the user asked first. */
export function taskOf(messages: readonly ForeignMessage[]): string {
  return (messages.find((message) => message.from === USER) ?? messages[0])?.content ?? '';
}
