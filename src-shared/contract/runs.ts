import { z } from 'zod';
import { sessionStatusSchema } from '../domain';
import { command, query } from './define';
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

export const runChannels = {
  'runs.start': command(
    z
      .object({
        source: fleetSourceSchema,
        task: z.string().trim().min(1).max(LIMITS.text),
        title: z.string().max(LIMITS.title).optional(),
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
        task: z.string().trim().min(1).max(LIMITS.text),
        context: z.record(z.string().max(LIMITS.id), z.string().max(10_000)).default({}),
      })
      .strict(),
    z.object({ sessionId: z.string() }),
    'Send a follow-up to a finished session; the conversation continues where it stopped.',
  ),
  'runs.active': query(z.object({}).strict(), z.array(activeRunSchema), 'Runs in progress in this process.'),
} as const;
