import { z } from 'zod';
import { messageKindSchema, messageSchema, tokenUsageSchema } from './message';
import { sessionStatusSchema } from './session';
import { fleetSchema } from './fleet';
import { rawMessageSchema, sentAgainSchema } from './model-call';

/** Live status of one agent, as drawn on its graph node. */
export const AGENT_STATUSES = [
  'idle',
  'thinking',
  'streaming',
  'waiting-for-human',
  'error',
  'done',
] as const;
export const agentStatusSchema = z.enum(AGENT_STATUSES);
export type AgentStatus = z.infer<typeof agentStatusSchema>;

/**
 * A tool call waiting for a person's approval: what the person sees and may edit. The answer is
 * the text `approve`, `deny <reason>`, or the edited arguments as a JSON object.
 */
export const toolApprovalSchema = z.object({
  callId: z.string(),
  /** The tool's name in the fleet (`server/tool` for an MCP tool). */
  name: z.string(),
  server: z.string().optional(),
  tool: z.string().optional(),
  /** The arguments as the agent wrote them (JSON text). */
  arguments: z.string(),
  /** The tool's input JSON Schema, which edited arguments must satisfy. */
  inputSchema: z.record(z.string(), z.json()),
});
export type ToolApproval = z.infer<typeof toolApprovalSchema>;

const event = <K extends string, P extends z.ZodType>(kind: K, payload: P) =>
  z.object({ kind: z.literal(kind), payload });

/**
 * Everything that happens in a session. The event log is the source of truth: the UI, replay,
 * exports and the materialized messages are all folds over these.
 */
export const eventBodySchema = z.discriminatedUnion('kind', [
  event(
    'session.started',
    z.object({
      title: z.string(),
      task: z.string(),
      fleetName: z.string(),
      /** The exact fleet the session ran with. */
      fleet: fleetSchema,
      parentSessionId: z.string().nullable(),
      forkSeq: z.number().int().nullable(),
    }),
  ),
  /** A finished session continues with a new task (a follow-up). */
  event('session.continued', z.object({ task: z.string(), context: z.record(z.string(), z.string()) })),
  event(
    'session.stopped',
    z.object({ status: sessionStatusSchema, stopReason: z.string(), detail: z.string().optional() }),
  ),
  event('session.status', z.object({ status: sessionStatusSchema })),
  event('agent.status', z.object({ status: agentStatusSchema })),
  event(
    'message.started',
    z.object({
      messageId: z.string(),
      threadId: z.string(),
      parentId: z.string().nullable(),
      from: z.string(),
      to: z.string(),
      kind: messageKindSchema,
    }),
  ),
  event('message.delta', z.object({ messageId: z.string(), text: z.string() })),
  event('message.completed', z.object({ message: messageSchema })),
  event(
    'tool.requested',
    z.object({
      messageId: z.string(),
      callId: z.string(),
      name: z.string(),
      arguments: z.string(),
      /** For an MCP tool: its server, and its name there (`name` is the one the model saw). */
      server: z.string().optional(),
      tool: z.string().optional(),
    }),
  ),
  event(
    'tool.executed',
    z.object({
      callId: z.string(),
      name: z.string(),
      result: z.string(),
      isError: z.boolean(),
      server: z.string().optional(),
      tool: z.string().optional(),
      /** A person denied the call (the reason is in `result`) or changed its arguments first. */
      approval: z.enum(['approved', 'denied', 'edited']).optional(),
    }),
  ),
  event('handoff', z.object({ from: z.string(), to: z.string(), messageId: z.string().nullable() })),
  event(
    'routing.decision',
    z.object({ candidates: z.array(z.string()), chosen: z.string(), reason: z.string() }),
  ),
  event(
    'human.requested',
    z.object({
      requestId: z.string(),
      prompt: z.string(),
      /** The question is whether a tool call may run: the app shows Approve, Deny and Edit for it. */
      approval: toolApprovalSchema.optional(),
    }),
  ),
  event('human.given', z.object({ requestId: z.string(), text: z.string() })),
  event(
    'error',
    z.object({ code: z.string(), message: z.string(), messageId: z.string().nullable().optional() }),
  ),
  event('message.dropped', z.object({ message: messageSchema, reason: z.string() })),
  event(
    'termination.check',
    z.object({ condition: z.string(), fired: z.boolean(), reason: z.string().nullable() }),
  ),
  event('usage', z.object({ messageId: z.string(), usage: tokenUsageSchema })),
  /**
   * Part of an ingested trace that has no Fleetscope meaning, kept rather than dropped: a span
   * that maps to nothing (an HTTP call, a chain step), or the attributes and events left over on
   * a span that did map (`partly`). The session header counts them.
   */
  event(
    'span.unmapped',
    z.object({
      /** The span's id (16 hex digits); empty for a resource's attributes. */
      spanId: z.string(),
      name: z.string(),
      partly: z.boolean(),
      attributes: z.record(z.string(), z.json()),
      events: z.array(z.object({ name: z.string(), attributes: z.record(z.string(), z.json()) })),
    }),
  ),
  /**
   * A model call as a traced program made it (sessions rebuilt from spans): what the agent's model
   * was sent and what it answered, for the raw view beside the rebuilt conversation. `inputs`
   * holds what follows the messages `sentAgain` names (see `ModelCallExpander`).
   */
  event(
    'model.call',
    z.object({
      /** The model call's span id. */
      callId: z.string(),
      model: z.string().nullable(),
      sentAgain: sentAgainSchema.nullable(),
      inputs: z.array(rawMessageSchema),
      outputs: z.array(rawMessageSchema),
      usage: tokenUsageSchema.nullable(),
      /** Why the call failed, when its span says it did. */
      error: z.string().optional(),
    }),
  ),
]);
export type EventBody = z.infer<typeof eventBodySchema>;
export type EventKind = EventBody['kind'];
export type EventOf<K extends EventKind> = Extract<RunEvent, { kind: K }>;

export const eventHeaderSchema = z.object({
  sessionId: z.string(),
  /** Strictly increasing within a session, starting at 1. */
  seq: z.number().int().positive(),
  /** Milliseconds since the session started. */
  t: z.number().nonnegative(),
  /** The agent the event is about, or null for session-level events. */
  agent: z.string().nullable(),
});

export const runEventSchema = z.intersection(eventHeaderSchema, eventBodySchema);
export type RunEvent = z.infer<typeof eventHeaderSchema> & EventBody;

export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
