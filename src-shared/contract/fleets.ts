import { z } from 'zod';
import { command, query } from './define';

export const fleetSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  /** Examples ship with the app and cannot be changed; duplicate one to edit it. */
  example: z.boolean(),
  /** True when every agent runs on the built-in scripted provider (no API key needed). */
  scripted: z.boolean(),
  agentCount: z.number().int(),
  pattern: z.string(),
  updatedAt: z.number().nullable(),
});
export type FleetSummary = z.infer<typeof fleetSummarySchema>;

export const fleetIssueSchema = z.object({ path: z.string(), message: z.string() });

export const fleetChannels = {
  'fleets.list': query(
    z.object({}).strict(),
    z.array(fleetSummarySchema),
    'Saved fleets and the shipped examples.',
  ),
  'fleets.get': query(
    z.object({ id: z.string().min(1).max(200) }).strict(),
    z.object({ summary: fleetSummarySchema, fleet: z.unknown() }),
    'One fleet file.',
  ),
  'fleets.save': command(
    z.object({ id: z.string().min(1).max(200).optional(), fleet: z.unknown() }).strict(),
    fleetSummarySchema,
    'Save a fleet (validated first).',
  ),
  'fleets.delete': command(
    z.object({ id: z.string().min(1).max(200) }).strict(),
    z.object({ deleted: z.boolean() }),
    'Delete a saved fleet.',
  ),
  'fleets.validate': query(
    z.object({ fleet: z.unknown() }).strict(),
    z.object({ errors: z.array(fleetIssueSchema), warnings: z.array(fleetIssueSchema) }),
    'Check a fleet without saving it.',
  ),
} as const;
