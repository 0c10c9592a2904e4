import { z } from 'zod';
import { sessionStatusSchema, type TerminationSpec } from '../domain';
import { command, query } from './define';
import { idSchema, LIMITS } from './fields';
import { PROVIDER_IDS } from './providers';
import { forkOfSchema } from './lineage';
import { storedMessageSchema } from './sessions';

const count = z.number().int().nonnegative();

/** What a fork changed, one entry per change (the tree labels a fork with their summaries). */
export const FORK_CHANGE_FIELDS = [
  'text',
  'systemPrompt',
  'model',
  'provider',
  'temperature',
  'termination',
] as const;
export const forkChangeSchema = z.object({
  field: z.enum(FORK_CHANGE_FIELDS),
  /** The agent changed (its address, `team/agent` inside a nested team); null for the message text and stop conditions. */
  agent: z.string().nullable(),
  /** A short sentence: `writer: model gpt-4o -> llama3`, `message 3 edited`. */
  summary: z.string(),
});
export type ForkChange = z.infer<typeof forkChangeSchema>;

/** An agent as a path: `writer`, or `team/writer` for an agent of a nested team. */
const agentPathSchema = z
  .string()
  .max(LIMITS.id)
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]{0,63}(\/[A-Za-z][A-Za-z0-9_-]{0,63})*$/,
    'must be an agent name, or team/agent for an agent of a nested team',
  );

/** One agent's settings changed in a fork (or given to an imported session's agent to run it). */
export const agentChangeSchema = z
  .object({
    agent: agentPathSchema,
    systemPrompt: z.string().max(LIMITS.jsonString).optional(),
    /** A provider preset from Settings: its base URL and key variable are used. */
    provider: z.enum(PROVIDER_IDS).optional(),
    model: z.string().trim().min(1).max(LIMITS.name).optional(),
    /** null removes the agent's temperature (the model's default applies). */
    temperature: z.number().min(0).max(2).nullable().optional(),
  })
  .strict();
export type AgentChange = z.infer<typeof agentChangeSchema>;

const shortText = z.string().min(1).max(LIMITS.search);
const nameList = z.array(z.string().min(1).max(LIMITS.id)).max(100);

/** Stop conditions as a caller sends them: the fleet's termination spec with bounded strings. */
export const terminationInputSchema: z.ZodType<TerminationSpec> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z
      .object({
        type: z.literal('max-messages'),
        max: z.number().int().positive().max(10_000_000),
        countToolEvents: z.boolean().optional(),
      })
      .strict(),
    z.object({ type: z.literal('text-mention'), text: shortText, sources: nameList.optional() }).strict(),
    z.object({ type: z.literal('token-budget'), maxTokens: z.number().int().positive().max(1e12) }).strict(),
    z.object({ type: z.literal('cost-budget'), maxCost: z.number().positive().max(1e9) }).strict(),
    z
      .object({
        type: z.literal('agent-token-budget'),
        maxTokens: z.number().int().positive().max(1e12),
        agents: nameList.optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('timeout'),
        seconds: z
          .number()
          .positive()
          .max(31 * 24 * 3600),
      })
      .strict(),
    z.object({ type: z.literal('handoff'), target: z.string().min(1).max(LIMITS.id) }).strict(),
    z.object({ type: z.literal('stop-message') }).strict(),
    z.object({ type: z.literal('external') }).strict(),
    z.object({ type: z.literal('source-match'), sources: nameList.min(1) }).strict(),
    z.object({ type: z.literal('and'), conditions: z.array(terminationInputSchema).min(1).max(50) }).strict(),
    z.object({ type: z.literal('or'), conditions: z.array(terminationInputSchema).min(1).max(50) }).strict(),
  ]),
);

export const forkInputSchema = z
  .object({
    sessionId: idSchema,
    /** Message number as `show` prints it (1 = the task). */
    atMessage: z.number().int().min(1).max(100_000_000),
    /** New text for message `atMessage` (its sender stays); omit to keep the message as it was. */
    text: z.string().max(LIMITS.text).optional(),
    agents: z.array(agentChangeSchema).max(200).default([]),
    /** New stop conditions for the fork (replacing the fleet's). */
    termination: terminationInputSchema.optional(),
    title: z.string().trim().min(1).max(LIMITS.title).optional(),
    /** Run the fork on from the fork point at once (default); false only creates it. */
    run: z.boolean().default(true),
  })
  .strict();
export type ForkInput = z.input<typeof forkInputSchema>;

export const forkResultSchema = z.object({
  sessionId: z.string(),
  forkOf: forkOfSchema,
  /** Short label of what changed (`message 3 edited; writer: model`), or `same as parent`. */
  label: z.string(),
  changes: z.array(forkChangeSchema),
  /** True when the fork was started (it streams as run.events to clients watching it). */
  running: z.boolean(),
});
export type ForkResult = z.infer<typeof forkResultSchema>;

/** One session of a family tree. */
export const familyNodeSchema = z.object({
  sessionId: z.string(),
  /** The session it was forked from, null for the root. */
  parentId: z.string().nullable(),
  forkOf: forkOfSchema.nullable(),
  title: z.string(),
  status: sessionStatusSchema,
  stopReason: z.string().nullable(),
  /** Messages the session holds, its prefix included. */
  messageCount: count,
  createdAt: z.number(),
  /** Distance from the root (0 for the root). */
  depth: count,
  /** Direct forks. */
  forks: count,
  label: z.string(),
  changes: z.array(forkChangeSchema),
});
export type FamilyNode = z.infer<typeof familyNodeSchema>;

/** Most sessions a family answer lists. */
export const MAX_FAMILY_NODES = 2000;

export const familySchema = z.object({
  rootId: z.string(),
  /** The session asked about (ids given as a prefix are resolved). */
  sessionId: z.string(),
  /** Root first, then depth-first in creation order: each fork after its parent. */
  nodes: z.array(familyNodeSchema),
  /** Set when the family has more than MAX_FAMILY_NODES sessions (the rest are left out). */
  truncated: z.boolean(),
});
export type Family = z.infer<typeof familySchema>;

/** One agent's figures in one session. `timeMs` is the time its messages took to arrive. */
export const agentFiguresSchema = z.object({
  messages: count,
  tokens: count,
  timeMs: z.number().nonnegative(),
  toolCalls: count,
  errors: count,
});
export type AgentFigures = z.infer<typeof agentFiguresSchema>;

export const compareSideSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  status: sessionStatusSchema,
  stopReason: z.string().nullable(),
  /** The sentence of the last `session.stopped`, when there is one. */
  stopDetail: z.string().nullable(),
  forkOf: forkOfSchema.nullable(),
  messages: count,
  tokens: count,
  durationMs: z.number().nonnegative(),
  toolCalls: count,
  errors: count,
});
export type CompareSide = z.infer<typeof compareSideSchema>;

/** A run of words: in both sessions' texts, only in A's, or only in B's. */
export const diffSegmentSchema = z.object({ text: z.string(), side: z.enum(['both', 'a', 'b']) });
export type DiffSegment = z.infer<typeof diffSegmentSchema>;

export const comparePairSchema = z.object({
  /** Message number in both sessions (1 = the task). */
  position: z.number().int().positive(),
  a: storedMessageSchema.nullable(),
  b: storedMessageSchema.nullable(),
  /** Same sender, receiver, kind and text. */
  same: z.boolean(),
  /**
   * Word-level differences of the two texts when both exist and differ; null when they are the
   * same, when one side is missing, or when the texts are too long to diff quickly.
   */
  segments: z.array(diffSegmentSchema).nullable(),
});
export type ComparePair = z.infer<typeof comparePairSchema>;

export const compareAgentSchema = z.object({
  name: z.string(),
  a: agentFiguresSchema,
  b: agentFiguresSchema,
  /** Some figure other than time differs. */
  differs: z.boolean(),
});
export type CompareAgent = z.infer<typeof compareAgentSchema>;

export const compareEdgeSchema = z.object({
  from: z.string(),
  to: z.string(),
  kind: z.enum(['message', 'handoff']),
  a: count,
  b: count,
  differs: z.boolean(),
});
export type CompareEdge = z.infer<typeof compareEdgeSchema>;

export const compareInputSchema = z
  .object({
    a: idSchema,
    b: idSchema,
    /** First pair of the page, as a 0-based index into the aligned pairs (0 = message 1). */
    offset: z.number().int().min(0).max(100_000_000).default(0),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();

/**
 * Two sessions side by side. Messages are aligned by position (message n of A beside message n
 * of B); the common prefix is the run of equal pairs from the start (for two branches of one
 * family it is at least the history they share by reference). Figures, stop reasons and edges
 * cover the whole sessions; pairs come a page at a time.
 */
export const compareSchema = z.object({
  a: compareSideSchema,
  b: compareSideSchema,
  /** Equal pairs from the start. */
  commonPrefix: count,
  /** Position of the first pair that differs; null when the two transcripts are the same. */
  divergeAt: z.number().int().positive().nullable(),
  /** The nearest session both descend from (one of them, or a common ancestor), if related. */
  ancestorId: z.string().nullable(),
  /** max(messages of A, messages of B). */
  totalPairs: count,
  offset: count,
  pairs: z.array(comparePairSchema),
  hasMore: z.boolean(),
  agents: z.array(compareAgentSchema),
  edges: z.array(compareEdgeSchema),
});
export type Compare = z.infer<typeof compareSchema>;

export const COMPARE_EXPORT_FORMATS = ['md', 'html'] as const;
export const compareExportFormatSchema = z.enum(COMPARE_EXPORT_FORMATS);
export type CompareExportFormat = z.infer<typeof compareExportFormatSchema>;

export const branchChannels = {
  'branches.fork': command(
    forkInputSchema,
    forkResultSchema,
    'Fork a session at a message: a new session sharing its history up to there by reference, with ' +
      'that message edited and agent settings or stop conditions changed if asked; runs on unless run is false.',
  ),
  'branches.family': query(
    z.object({ id: idSchema }).strict(),
    familySchema,
    "A session's family tree: its root and every fork, with fork points and what each changed.",
  ),
  'branches.compare': query(
    compareInputSchema,
    compareSchema,
    'Compare two sessions: common prefix, point of divergence, a page of aligned pairs with word ' +
      'differences, per-agent figures, stop reasons and edge counts.',
  ),
  'branches.exportCompare': command(
    z
      .object({
        a: idSchema,
        b: idSchema,
        format: compareExportFormatSchema,
        taskId: z.string().max(LIMITS.id).optional(),
      })
      .strict(),
    z.object({ path: z.string(), bytes: z.number().int(), fileName: z.string() }),
    "Export a comparison of two sessions (Markdown or self-contained HTML) into the data folder's exports/.",
  ),
} as const;
