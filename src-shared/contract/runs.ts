import { z } from 'zod';
import { sessionStatusSchema } from '../domain';
import { command, query } from './define';
import { agentChangeSchema } from './branches';
import { idSchema, LIMITS } from './fields';
import { fleetFileInputSchema } from './fleets';

const sessionId = idSchema;

/**
 * Which fleet to run: a saved one, a shipped example, or a fleet file's JSON object (checked
 * field by field by the fleet validator, which names every problem).
 */
export const fleetSourceSchema = z.union([
  z.object({ fleetId: idSchema }).strict(),
  z.object({ example: idSchema }).strict(),
  z.object({ fleet: fleetFileInputSchema }).strict(),
]);
export type FleetSource = z.infer<typeof fleetSourceSchema>;

export const RUN_ACTIONS = ['pause', 'resume', 'step', 'stop'] as const;

export const activeRunSchema = z.object({ sessionId: z.string(), status: sessionStatusSchema });

/** Whether a stored session can be continued now, and what it still needs. */
export const resumeCheckSchema = z.object({
  sessionId: z.string(),
  resumable: z.boolean(),
  /** Why not, in a sentence; null when resumable. */
  reason: z.string().nullable(),
  /** A process is driving it right now. */
  live: z.boolean(),
  /** Agents (addresses) with no provider to run on: map them with `agents` (or choose a fleet). */
  unmappedAgents: z.array(z.string()),
  /** Imported from a transcript: continuing it makes it a regular (writable) session. */
  imported: z.boolean(),
});
export type ResumeCheck = z.infer<typeof resumeCheckSchema>;

export const runChannels = {
  'runs.start': command(
    z
      .object({
        source: fleetSourceSchema,
        task: z.string().trim().min(1).max(LIMITS.text),
        title: z.string().max(LIMITS.title).optional(),
        /** An absolute folder the agents' read_file tool may read inside (like the CLI's --files). */
        folder: z.string().trim().min(1).max(LIMITS.path).optional(),
      })
      .strict(),
    z.object({ sessionId: z.string() }),
    'Start a run; its events stream as run.events.',
  ),
  'runs.control': command(
    z.object({ sessionId, action: z.enum(RUN_ACTIONS) }).strict(),
    activeRunSchema,
    'Pause, resume, step one round, or stop a run.',
  ),
  'runs.answer': command(
    z.object({ sessionId, requestId: idSchema, text: z.string().max(LIMITS.text) }).strict(),
    activeRunSchema,
    'Answer a human agent that is waiting.',
  ),
  'runs.continue': command(
    z
      .object({
        sessionId,
        /** A follow-up task; empty (the default) resumes where the conversation stopped. */
        task: z.string().trim().max(LIMITS.text).default(''),
        context: z.record(z.string().max(LIMITS.id), z.string().max(10_000)).default({}),
        /**
         * Providers (and settings) for agents that have none, e.g. an imported session's agents;
         * also changes an agent's settings for the rest of the session.
         */
        agents: z.array(agentChangeSchema).max(200).default([]),
        /** Run on with this fleet instead (its agents must include every agent that spoke). */
        fleet: fleetSourceSchema.optional(),
      })
      .strict(),
    z.object({ sessionId: z.string() }),
    'Continue any stored session that is not running (finished, stopped, interrupted, from an ' +
      'earlier launch or another process): its state is rebuilt from its events and the run ' +
      'appends to the same session. A read-only session (an import, once its agents have ' +
      'providers) never changes: it goes on in a new fork, whose id is answered. Refused, with ' +
      "nothing changed, at Settings' message cap or when no agent has anything left to say.",
  ),
  'runs.resumeCheck': query(
    z.object({ sessionId }).strict(),
    resumeCheckSchema,
    'Whether a stored session can be continued, and if not why; lists agents that still need a provider.',
  ),
  'runs.active': query(z.object({}).strict(), z.array(activeRunSchema), 'Runs in progress in this process.'),
} as const;
