import { z } from 'zod';

/** Every kind of message an agent can say. Kept apart from events (what the UI and history see). */
export const MESSAGE_KINDS = [
  'text',
  'code',
  'function',
  'tool',
  'system',
  'status',
  'error',
  'task',
  'result',
  'feedback',
  'handoff',
  'stop',
] as const;
export const messageKindSchema = z.enum(MESSAGE_KINDS);
export type MessageKind = z.infer<typeof messageKindSchema>;

/** Receiver meaning "every agent in the session". */
export const BROADCAST = '*';
/** A receiver as people read it: a broadcast is "everyone". */
export function receiverLabel(to: string): string {
  return to === BROADCAST ? 'everyone' : to;
}
/**
 * Who addressed whom, as every surface writes it (the app, the CLI, the exports):
 * `alice → bob`, `alice → everyone`.
 */
export function addressText(from: string, to: string): string {
  return `${from} → ${receiverLabel(to)}`;
}
/** Sender / receiver id used for the person who gave the task. */
export const USER = 'user';

/**
 * What one model call used. `prompt` and `completion` are always there; the rest only where the
 * provider (or the imported format) reports them. `cached` is the part of `prompt` read from the
 * provider's prompt cache and `reasoning` the part of `completion` spent on hidden reasoning (both
 * are included in their totals, as OpenAI reports them). `cost` is in the price table's currency
 * (US dollars): a number when the call was priced, null when no price is known for its model,
 * absent when nobody priced it yet (the store prices it on write; see history/pricing.ts).
 */
export const tokenUsageSchema = z.object({
  prompt: z.number().int().nonnegative(),
  completion: z.number().int().nonnegative(),
  cached: z.number().int().nonnegative().optional(),
  reasoning: z.number().int().nonnegative().optional(),
  /** The model that answered, as the provider named it (else as requested). */
  model: z.string().max(200).optional(),
  /** The provider id of the fleet (`ProviderRef.id`), or the imported system's name. */
  provider: z.string().max(200).optional(),
  /** Milliseconds from sending the request to the first streamed token. */
  firstTokenMs: z.number().nonnegative().optional(),
  /** Milliseconds from sending the request to the end of the reply. */
  durationMs: z.number().nonnegative().optional(),
  cost: z.number().nonnegative().nullable().optional(),
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/** A tool call as the model asked for it; `arguments` is the raw JSON text. */
export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

/** Image types a tool result may carry to be shown (raster only: an SVG can hold script). */
export const TOOL_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** Base64 characters of one image kept at most (about 1.5 MB of image). */
export const MAX_TOOL_IMAGE_CHARS = 2_000_000;

/** An image a tool returned (an MCP image part), base64, shown as an image in the transcript. */
export const toolImageSchema = z.object({
  mimeType: z.enum(TOOL_IMAGE_TYPES),
  data: z
    .string()
    .max(MAX_TOOL_IMAGE_CHARS)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/),
});
export type ToolImage = z.infer<typeof toolImageSchema>;

export const toolResultSchema = z.object({
  callId: z.string().min(1),
  name: z.string().min(1),
  content: z.string(),
  isError: z.boolean(),
  /** Images in the result, for people to see (the model reads `content`, which names them). */
  images: z.array(toolImageSchema).max(8).optional(),
});
export type ToolResult = z.infer<typeof toolResultSchema>;

export const MESSAGE_STATES = ['streaming', 'partial', 'complete'] as const;
export const messageStateSchema = z.enum(MESSAGE_STATES);
export type MessageState = z.infer<typeof messageStateSchema>;

/**
 * Free key/values a message carries (such as thoughts): JSON values. Typed as plain records so
 * producers (runtime, importers) need not spell out JSON types; the schema checks them.
 */
export const metaSchema: z.ZodType<Record<string, unknown>> = z.record(z.string(), z.json());

/** What an agent hands to the runtime. `from`, ids and thread are filled in by the runtime. */
export const draftSchema = z.object({
  to: z.string().min(1),
  kind: messageKindSchema,
  content: z.string(),
  parentId: z.string().min(1).nullable().optional(),
  meta: metaSchema.optional(),
  toolCalls: z.array(toolCallSchema).optional(),
  toolResults: z.array(toolResultSchema).optional(),
  usage: tokenUsageSchema.optional(),
});
export type Draft = z.infer<typeof draftSchema>;

/** A delivered message: the envelope plus content. */
export const messageSchema = z.object({
  id: z.string().min(1),
  threadId: z.string().min(1),
  parentId: z.string().min(1).nullable(),
  from: z.string().min(1),
  to: z.string().min(1),
  kind: messageKindSchema,
  content: z.string(),
  meta: metaSchema,
  toolCalls: z.array(toolCallSchema).optional(),
  toolResults: z.array(toolResultSchema).optional(),
  usage: tokenUsageSchema.optional(),
  state: messageStateSchema,
  /** Milliseconds since the session started. */
  t: z.number().nonnegative(),
});
export type Message = z.infer<typeof messageSchema>;

/**
 * Tool calls and tool results: the sender's own work, drawn on its node and lane, never as a
 * message to whoever it is addressed to.
 */
export function isOwnWork(message: Pick<Message, 'kind' | 'toolCalls' | 'toolResults'>): boolean {
  return (
    message.kind === 'function' ||
    message.kind === 'tool' ||
    (message.toolCalls?.length ?? 0) > 0 ||
    (message.toolResults?.length ?? 0) > 0
  );
}

/**
 * Everyone a message went to: `to`, then `meta.alsoTo` (agents that received the same words at
 * the same turn, as a traced fan-out does).
 */
export function receiversOf(message: Pick<Message, 'to' | 'meta'>): string[] {
  const also = message.meta.alsoTo;
  const more = Array.isArray(also) ? also.filter((name): name is string => typeof name === 'string') : [];
  return [message.to, ...more.filter((name) => name !== message.to)];
}
