import { z } from 'zod';
import {
  messageSchema,
  runEventSchema,
  sessionStatusSchema,
  sessionSummarySchema,
  type RunEvent,
  type ViewState,
} from '../domain';
import { command, query } from './define';

const id = z.string().min(1).max(200);

export const sessionListItemSchema = sessionSummarySchema.extend({ durationMs: z.number().nonnegative() });
export type SessionListItem = z.infer<typeof sessionListItemSchema>;

export const storedMessageSchema = messageSchema.extend({
  /** Position in the event log; the paging cursor. */
  seq: z.number().int().positive(),
  /** Set when the runtime dropped the message (unknown recipient). */
  droppedReason: z.string().nullable(),
});
export type StoredMessage = z.infer<typeof storedMessageSchema>;

/** One agent's completed messages up to a seq (from `sessions.edges`). */
export interface AgentEdgeStats {
  name: string;
  /** Completed (not dropped) messages it sent. */
  messages: number;
  /** Prompt plus completion tokens of those messages. */
  tokens: number;
  /** Seq of the last message it sent or that was addressed to it by name; 0 when none. */
  lastSeq: number;
}

/** Messages along one (kind, from, to) edge up to a seq. Handoffs are messages of kind handoff. */
export interface EdgeCount {
  from: string;
  to: string;
  kind: 'message' | 'handoff';
  count: number;
  lastSeq: number;
}

/**
 * Graph totals computed in SQL over the materialized messages, so a long session's first draw
 * shows edges and counts before its event log is in the renderer. Routing decisions are events,
 * not messages, so routing edges are not here (they appear once the log has loaded).
 */
export interface SessionEdgeStats {
  seq: number;
  agents: AgentEdgeStats[];
  edges: EdgeCount[];
}

export const sessionListQuerySchema = z
  .object({
    limit: z.number().int().min(1).max(500).optional(),
    offset: z.number().int().min(0).optional(),
    status: z.array(sessionStatusSchema).optional(),
    fleetName: z.string().max(200).optional(),
    /** Created at or after / before, epoch milliseconds. */
    from: z.number().optional(),
    to: z.number().optional(),
    tag: z.string().max(100).optional(),
    search: z.string().max(500).optional(),
  })
  .strict();

const cursorSchema = z.union([
  z.object({ seq: z.number().int().nonnegative() }).strict(),
  z.object({ t: z.number().nonnegative() }).strict(),
]);

export const EXPORT_FORMATS = ['md', 'json', 'html', 'otlp'] as const;
export const exportFormatSchema = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof exportFormatSchema>;

/** The largest file the app accepts through `sessions.importData` (the CLI has no limit). */
export const MAX_IMPORT_BYTES = 48 * 1024 * 1024;

const runEventArray = z.array(runEventSchema) as unknown as z.ZodType<RunEvent[]>;

export const sessionChannels = {
  'sessions.list': query(
    sessionListQuerySchema,
    z.object({ items: z.array(sessionListItemSchema), total: z.number().int() }),
    'Sessions newest first, filtered and paged.',
  ),
  'sessions.get': query(
    z.object({ id }).strict(),
    z.object({ summary: sessionListItemSchema, fleet: z.unknown().nullable() }),
    'One session and the fleet snapshot it ran with.',
  ),
  'sessions.messages': query(
    z
      .object({
        id,
        after: cursorSchema.optional(),
        before: cursorSchema.optional(),
        from: z.enum(['start', 'end']).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
        threadId: z.string().max(200).optional(),
        agent: z.string().max(200).optional(),
      })
      .strict(),
    z.object({ items: z.array(storedMessageSchema), hasBefore: z.boolean(), hasAfter: z.boolean() }),
    "A page of a session's messages around a cursor.",
  ),
  'sessions.events': query(
    z
      .object({
        id,
        afterSeq: z.number().int().min(0),
        limit: z.number().int().min(1).max(20_000).optional(),
      })
      .strict(),
    z.object({ events: runEventArray, lastSeq: z.number().int() }),
    "A slice of a session's event log, for replay and for healing gaps.",
  ),
  'sessions.seek': query(
    z.object({ id, seq: z.number().int().min(0) }).strict(),
    z.custom<ViewState>(),
    'The folded view state at a seq (nearest checkpoint plus a short fold).',
  ),
  'sessions.edges': query(
    z.object({ id, seq: z.number().int().min(0).optional() }).strict(),
    z.custom<SessionEdgeStats>(),
    'Who addressed whom and how much each agent said, up to a seq (default: the end), from the stored messages.',
  ),
  'sessions.rename': command(
    z.object({ id, title: z.string().trim().min(1).max(300) }).strict(),
    sessionListItemSchema,
    'Rename a session.',
  ),
  'sessions.tag': command(
    z.object({ id, tags: z.array(z.string().trim().min(1).max(60)).max(50) }).strict(),
    sessionListItemSchema,
    "Replace a session's tags.",
  ),
  'sessions.delete': command(
    z.object({ id }).strict(),
    z.object({ deleted: z.boolean() }),
    'Delete a session.',
  ),
  'sessions.export': command(
    z.object({ id, format: exportFormatSchema, taskId: z.string().max(100).optional() }).strict(),
    z.object({ path: z.string(), bytes: z.number().int(), fileName: z.string() }),
    "Export a session into the data folder's exports/ (progress as task.progress events).",
  ),
  'sessions.importData': command(
    z
      .object({
        fileName: z.string().min(1).max(300),
        content: z.string().max(MAX_IMPORT_BYTES),
        taskId: z.string().max(100).optional(),
      })
      .strict(),
    z.object({ sessionId: z.string(), format: z.string(), messageCount: z.number().int() }),
    'Import a transcript (our JSON, AutoGen, OpenAI messages); the format is detected.',
    { maxBytes: MAX_IMPORT_BYTES + 64 * 1024 },
  ),
} as const;
