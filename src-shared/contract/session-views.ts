import { z } from 'zod';
import {
  agentStatusSchema,
  messageSchema,
  rawMessageSchema,
  runEventSchema,
  sessionStatusSchema,
  tokenUsageSchema,
  usageFiguresSchema,
  type RunEvent,
  type ViewState,
} from '../domain';

const count = z.number().int().nonnegative();

/**
 * A session's events in seq order. The cast only restates the domain's RunEvent type (the
 * intersection of header and body); the runtime schema is the full event schema.
 */
export const runEventListSchema = z.array(runEventSchema) as unknown as z.ZodType<RunEvent[]>;

export const viewCountersSchema = z.object({
  events: count,
  messages: count,
  promptTokens: count,
  completionTokens: count,
  toolCalls: count,
  toolResults: count,
  handoffs: count,
  errors: count,
  dropped: count,
  unmapped: z.object({ spans: count, attributes: count }).optional(),
});

/** The folded view of a session at one seq (see `ViewState` in the domain's fold). */
export const viewStateSchema = z.object({
  seq: count,
  t: z.number().nonnegative(),
  status: sessionStatusSchema.nullable(),
  stopReason: z.string().nullable(),
  agents: z.record(z.string(), agentStatusSchema),
  messages: z.record(z.string(), messageSchema),
  order: z.array(z.string()),
  pendingHuman: z
    .object({ requestId: z.string(), prompt: z.string(), agent: z.string().nullable() })
    .nullable(),
  counters: viewCountersSchema,
}) satisfies z.ZodType<ViewState>;

/** One agent's completed messages up to a seq (from `sessions.edges`). */
export const agentEdgeStatsSchema = z.object({
  name: z.string(),
  /** Completed (not dropped) messages it sent. */
  messages: count,
  /** Prompt plus completion tokens of those messages. */
  tokens: count,
  /** Seq of the last message it sent or that was addressed to it by name; 0 when none. */
  lastSeq: count,
});
export type AgentEdgeStats = z.infer<typeof agentEdgeStatsSchema>;

/** Messages along one (kind, from, to) edge up to a seq. Handoffs are messages of kind handoff. */
export const edgeCountSchema = z.object({
  from: z.string(),
  to: z.string(),
  kind: z.enum(['message', 'handoff']),
  count,
  lastSeq: count,
});
export type EdgeCount = z.infer<typeof edgeCountSchema>;

/**
 * Graph totals computed in SQL over the materialized messages, so a long session's first draw
 * shows edges and counts before its event log is in the renderer. Routing decisions are events,
 * not messages, so routing edges are not here (they appear once the log has loaded).
 */
export const sessionEdgeStatsSchema = z.object({
  seq: count,
  agents: z.array(agentEdgeStatsSchema),
  edges: z.array(edgeCountSchema),
});
export type SessionEdgeStats = z.infer<typeof sessionEdgeStatsSchema>;

/**
 * A session's turns for the turn picker without its event log: every sender's number of
 * messages, and a page of one agent's message seqs near a position with the number of the first.
 */
export const turnIndexSchema = z.object({
  agents: z.array(z.object({ name: z.string(), count })),
  /** The agent the page is of; null when none was asked for. */
  agent: z.string().nullable(),
  /** How many of the agent's messages come before `seqs[0]` (its turn number minus one). */
  firstIndex: count,
  /** Seqs of the agent's messages (where each completed), ascending. */
  seqs: z.array(count),
});
export type TurnIndex = z.infer<typeof turnIndexSchema>;

/** One part of an ingested trace that was kept but not mapped, and why (from `sessions.unmapped`). */
export const unmappedItemSchema = z.object({
  seq: count,
  /** The span's id; empty for a resource's attributes. */
  spanId: z.string(),
  name: z.string(),
  agent: z.string().nullable(),
  why: z.string(),
});
export type UnmappedItem = z.infer<typeof unmappedItemSchema>;

export const unmappedListSchema = z.object({
  items: z.array(unmappedItemSchema),
  /** All unmapped parts in the session (items holds at most the limit asked for). */
  total: count,
});
export type UnmappedList = z.infer<typeof unmappedListSchema>;

/** One model call as a traced program made it (from `sessions.modelCalls`). */
export const modelCallItemSchema = z.object({
  seq: count,
  /** Milliseconds since the session started, when the call began. */
  t: z.number().nonnegative(),
  agent: z.string().nullable(),
  callId: z.string(),
  model: z.string().nullable(),
  usage: tokenUsageSchema.nullable(),
  error: z.string().optional(),
  /** Every message the model was sent, in order. */
  inputs: z.array(rawMessageSchema),
  /** How many of `inputs`, from the first, the agent's previous call had already been sent or answered. */
  sentAgain: count,
  outputs: z.array(rawMessageSchema),
});
export type ModelCallItem = z.infer<typeof modelCallItemSchema>;

export const modelCallListSchema = z.object({
  calls: z.array(modelCallItemSchema),
  /** Model calls in the session; 0 for a session Fleetscope ran itself (its messages are its calls). */
  total: count,
  /** The offset of the first call after this page; null when the page ends the list. */
  nextOffset: count.nullable(),
});
export type ModelCallList = z.infer<typeof modelCallListSchema>;

/** One agent's model usage (the calls behind the messages it sent). */
export const agentUsageSchema = z.object({ name: z.string(), figures: usageFiguresSchema });
export type AgentUsage = z.infer<typeof agentUsageSchema>;

/**
 * What the turns one edge triggered cost: the model calls of `to` whose message answers
 * (`parentId`) a message `from` sent. Who drives the cost is read from the `from` side.
 */
export const edgeUsageSchema = z.object({ from: z.string(), to: z.string(), figures: usageFiguresSchema });
export type EdgeUsage = z.infer<typeof edgeUsageSchema>;

/** A session's usage up to a seq, from the stored message rows (`sessions.usage`). */
export const sessionUsageSchema = z.object({
  seq: count,
  total: usageFiguresSchema,
  agents: z.array(agentUsageSchema),
  edges: z.array(edgeUsageSchema),
});
export type SessionUsage = z.infer<typeof sessionUsageSchema>;
