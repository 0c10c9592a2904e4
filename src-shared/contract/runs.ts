import { z } from 'zod';
import { sessionStatusSchema } from '../domain';
import { command, query } from './define';

const sessionId = z.string().min(1).max(200);

/** Which fleet to run: a saved one, a shipped example, or a fleet object (validated by the runtime). */
export const fleetSourceSchema = z.union([
  z.object({ fleetId: z.string().min(1).max(200) }).strict(),
  z.object({ example: z.string().min(1).max(200) }).strict(),
  z.object({ fleet: z.unknown() }).strict(),
]);
export type FleetSource = z.infer<typeof fleetSourceSchema>;

export const RUN_ACTIONS = ['pause', 'resume', 'step', 'stop'] as const;

export const activeRunSchema = z.object({ sessionId: z.string(), status: sessionStatusSchema });

export const runChannels = {
  'runs.start': command(
    z
      .object({
        source: fleetSourceSchema,
        task: z.string().trim().min(1).max(100_000),
        title: z.string().max(300).optional(),
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
    z.object({ sessionId, requestId: z.string().min(1).max(200), text: z.string().max(100_000) }).strict(),
    activeRunSchema,
    'Answer a human agent that is waiting.',
  ),
  'runs.continue': command(
    z
      .object({
        sessionId,
        task: z.string().trim().min(1).max(100_000),
        context: z.record(z.string().max(200), z.string().max(10_000)).default({}),
      })
      .strict(),
    z.object({ sessionId: z.string() }),
    'Send a follow-up to a finished session; the conversation continues where it stopped.',
  ),
  'runs.active': query(z.object({}).strict(), z.array(activeRunSchema), 'Runs in progress in this process.'),
} as const;
