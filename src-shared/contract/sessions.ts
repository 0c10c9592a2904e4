import { z } from 'zod';
import { messageSchema, sessionStatusSchema, sessionSummarySchema } from '../domain';
import { command, query } from './define';
import { idSchema as id, LIMITS } from './fields';
import { fleetFileSchema } from './fleets';
import { familyCountsSchema, forkOfSchema } from './lineage';
import {
  modelCallListSchema,
  runEventListSchema,
  sessionEdgeStatsSchema,
  sessionUsageSchema,
  turnIndexSchema,
  unmappedListSchema,
  viewStateSchema,
} from './session-views';

export const sessionListItemSchema = sessionSummarySchema.extend({
  durationMs: z.number().nonnegative(),
  /**
   * The session this one was forked from and the message number it keeps up to; null for a
   * session that is not a fork. The store always answers it (optional only for older callers).
   */
  forkOf: forkOfSchema.nullable().optional(),
  /** Its family's root and size, and how many forks it has. Always answered by the store. */
  family: familyCountsSchema.optional(),
});
export type SessionListItem = z.infer<typeof sessionListItemSchema>;

export const storedMessageSchema = messageSchema.extend({
  /** Position in the event log; the paging cursor. */
  seq: z.number().int().positive(),
  /** Set when the runtime dropped the message (unknown recipient). */
  droppedReason: z.string().nullable(),
});
export type StoredMessage = z.infer<typeof storedMessageSchema>;

/** How the session list can be sorted: newest, most expensive, most tokens, longest first. */
export const SESSION_SORTS = ['created', 'cost', 'tokens', 'duration'] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

export const sessionListQuerySchema = z
  .object({
    limit: z.number().int().min(1).max(500).optional(),
    offset: z.number().int().min(0).optional(),
    status: z.array(sessionStatusSchema).max(20).optional(),
    fleetName: z.string().max(LIMITS.id).optional(),
    /** Created at or after / before, epoch milliseconds. */
    from: z.number().optional(),
    to: z.number().optional(),
    tag: z.string().max(LIMITS.tag).optional(),
    search: z.string().max(LIMITS.search).optional(),
    /** Sort key, largest (or newest) first; default `created`. */
    sort: z.enum(SESSION_SORTS).optional(),
  })
  .strict();

const cursorSchema = z.union([
  z.object({ seq: z.number().int().nonnegative() }).strict(),
  z.object({ t: z.number().nonnegative() }).strict(),
]);

export const EXPORT_FORMATS = ['md', 'json', 'html', 'otlp'] as const;
export const exportFormatSchema = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof exportFormatSchema>;

/**
 * The tag an import puts on a session whose source recorded no times: its messages were spaced
 * at a reading pace so a replay can be followed, and the times are made up.
 */
export const SYNTHETIC_TIMING_TAG = 'synthetic timing';

/** The largest file the app accepts through `sessions.importData` (the CLI has no limit). */
export const MAX_IMPORT_BYTES = 48 * 1024 * 1024;

export const sessionChannels = {
  'sessions.list': query(
    sessionListQuerySchema,
    z.object({ items: z.array(sessionListItemSchema), total: z.number().int() }),
    'Sessions newest first (or by cost, tokens or duration), filtered and paged.',
  ),
  'sessions.get': query(
    z.object({ id }).strict(),
    z.object({ summary: sessionListItemSchema, fleet: fleetFileSchema.nullable() }),
    'One session (by id or a unique id prefix) and the fleet snapshot it ran with (null for imports).',
  ),
  'sessions.messages': query(
    z
      .object({
        id,
        after: cursorSchema.optional(),
        before: cursorSchema.optional(),
        from: z.enum(['start', 'end']).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
        threadId: z.string().max(LIMITS.id).optional(),
        agent: z.string().max(LIMITS.id).optional(),
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
    z.object({ events: runEventListSchema, lastSeq: z.number().int().nonnegative() }),
    "A slice of a session's event log (the events after afterSeq), for replay windows and for healing gaps; lastSeq is the log's last.",
  ),
  'sessions.turns': query(
    z
      .object({
        id,
        /** The agent whose turns to page; without it only the per-agent counts are answered. */
        agent: z.string().max(LIMITS.id).optional(),
        /** The page is centred here (default: the start). */
        aroundSeq: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      })
      .strict(),
    turnIndexSchema,
    "Each agent's number of turns (messages), and a page of one agent's turn seqs near a position, from the stored messages.",
  ),
  'sessions.seek': query(
    z.object({ id, seq: z.number().int().min(0) }).strict(),
    viewStateSchema,
    'The folded view state at a seq (nearest checkpoint plus a short fold).',
  ),
  'sessions.edges': query(
    z.object({ id, seq: z.number().int().min(0).optional() }).strict(),
    sessionEdgeStatsSchema,
    'Who addressed whom and how much each agent said, up to a seq (default: the end), from the stored messages.',
  ),
  'sessions.usage': query(
    z.object({ id, seq: z.number().int().min(0).optional() }).strict(),
    sessionUsageSchema,
    "Tokens, cost and busy time of a session's model calls up to a seq (default: the end): in total, per agent and per edge, from the stored messages.",
  ),
  'sessions.unmapped': query(
    z.object({ id, limit: z.number().int().min(1).max(5000).optional() }).strict(),
    unmappedListSchema,
    "What of an ingested trace had no Fleetscope meaning (the header's UNMAPPED count): each span's name and why, in log order.",
  ),
  'sessions.modelCalls': query(
    z
      .object({
        id,
        offset: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(500).optional(),
      })
      .strict(),
    modelCallListSchema,
    'The model calls of a session rebuilt from traces, as they were made (agent, every message sent, the answer, model, usage), in log order; a page ends early once it holds about 2 MB of text.',
  ),
  'sessions.rename': command(
    z.object({ id, title: z.string().trim().min(1).max(LIMITS.title) }).strict(),
    sessionListItemSchema,
    'Rename a session.',
  ),
  'sessions.tag': command(
    z.object({ id, tags: z.array(z.string().trim().min(1).max(LIMITS.tag)).max(LIMITS.tags) }).strict(),
    sessionListItemSchema,
    "Replace a session's tags.",
  ),
  'sessions.delete': command(
    z.object({ id }).strict(),
    z.object({ deleted: z.boolean() }),
    'Delete a session.',
  ),
  'sessions.export': command(
    z.object({ id, format: exportFormatSchema, taskId: z.string().max(LIMITS.id).optional() }).strict(),
    z.object({ path: z.string(), bytes: z.number().int(), fileName: z.string() }),
    "Export a session into the data folder's exports/ (progress as task.progress events).",
  ),
  'sessions.importData': command(
    z
      .object({
        fileName: z.string().min(1).max(LIMITS.title),
        content: z.string().max(MAX_IMPORT_BYTES),
        taskId: z.string().max(LIMITS.id).optional(),
        /** Import even when the same file was imported before (see `earlier` in the answer). */
        allowDuplicate: z.boolean().optional(),
      })
      .strict(),
    z.object({
      sessionId: z.string(),
      format: z.string(),
      messageCount: z.number().int(),
      /**
       * Every session the import created, in the order they started: one, but for a trace file
       * holding several conversations (then `sessionId` is the one with the most messages and
       * `messageCount` counts them all). Absent when `earlier` is set.
       */
      sessionIds: z.array(z.string()).optional(),
      /**
       * Set when the same file (same content) was imported before and nothing was written: the
       * other fields describe that earlier session. Ask again with `allowDuplicate` to import anyway.
       */
      earlier: z.object({ title: z.string() }).optional(),
    }),
    'Import a transcript (our JSON, AutoGen, OpenAI messages); the format is detected. A file imported ' +
      'before is not imported twice unless allowDuplicate is set: the answer names the earlier session.',
    { maxBytes: MAX_IMPORT_BYTES + 64 * 1024 },
  ),
  'sessions.watch': command(
    z.object({ ids: z.array(id).max(LIMITS.watched) }).strict(),
    z.object({ ids: z.array(z.string()) }),
    'Set the sessions whose live run.events this client receives (replaces the previous set; an ' +
      'empty list stops them). Open views watch their session; lists rely on store.changed. ' +
      'Every id must name a stored session (not-found otherwise, and the set stays as it was).',
  ),
} as const;
