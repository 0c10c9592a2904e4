import { z } from 'zod';
import { query } from './define';
import { idSchema as id } from './fields';

const count = z.number().int().nonnegative();

/**
 * What a part of a model call's context is: the system prompt, the task a person gave, another's
 * message, the agent's own earlier reply, a tool call it made, or a tool's result.
 */
export const CONTEXT_PART_KINDS = ['system', 'task', 'message', 'own', 'tool-call', 'tool-result'] as const;
export const contextPartKindSchema = z.enum(CONTEXT_PART_KINDS);
export type ContextPartKind = z.infer<typeof contextPartKindSchema>;

/** One chat turn of the context, in the order the model read it. */
export const contextPartSchema = z.object({
  kind: contextPartKindSchema,
  /** Who said it (null for the system prompt). */
  sender: z.string().nullable(),
  /** The message it was made from (null for the system prompt). */
  messageId: z.string().nullable(),
  tokens: count,
  /** Counted with a tokenizer here, not reported by a provider. */
  estimated: z.boolean(),
  /** The start of its text, at most 160 characters. */
  preview: z.string(),
});
export type ContextPart = z.infer<typeof contextPartSchema>;

/** The parts of one kind from one sender, summed. */
export const contextGroupSchema = z.object({
  kind: contextPartKindSchema,
  sender: z.string().nullable(),
  parts: count,
  tokens: count,
  /** Of `tokens`, how many were counted with a tokenizer. */
  estimatedTokens: count,
});
export type ContextGroup = z.infer<typeof contextGroupSchema>;

/** The most parts `sessions.context` lists one by one (the last ones; groups cover them all). */
export const MAX_CONTEXT_PARTS = 200;

/** What filled an agent's context window for the model call that wrote one message. */
export const sessionContextSchema = z.object({
  messageId: z.string(),
  /** The agent whose call it was (the message's sender). */
  agent: z.string(),
  seq: count,
  /** The model the agent called; null when it calls none (scripted, human) or is unknown. */
  model: z.string().nullable(),
  /** The model's context window in tokens, from the price table; null when unknown. */
  windowTokens: count.nullable(),
  /** The prompt tokens the provider reported for this call; null when it reported none. */
  reportedPromptTokens: count.nullable(),
  /** The parts' tokens added up. */
  countedTokens: count,
  /** Of `countedTokens`, how many were counted with a tokenizer (estimates). */
  estimatedTokens: count,
  /** By part: each kind from each sender, in the order each first appears. */
  groups: z.array(contextGroupSchema),
  /** The last MAX_CONTEXT_PARTS parts, in reading order. */
  parts: z.array(contextPartSchema),
  /** Parts before `parts[0]` not listed one by one. */
  omittedParts: count,
  /**
   * Why there is no context to show, or what to read it as (a scripted agent calls no model);
   * null for a model agent's call.
   */
  note: z.string().nullable(),
});
export type SessionContext = z.infer<typeof sessionContextSchema>;

export const contextChannels = {
  'sessions.context': query(
    z.object({ id, messageId: z.string().min(1).max(200) }).strict(),
    sessionContextSchema,
    "What filled an agent's context window for the model call that wrote a message: tokens by part " +
      '(system prompt, the task, each earlier message by sender, tool calls and results) against ' +
      "the model's window; provider counts where reported, tokenizer estimates otherwise.",
  ),
} as const;
