import { z } from 'zod';
import { fleetSchema, mcpServerNameSchema, type FleetInput } from '../domain';
import { command, query } from './define';
import { idSchema, jsonObjectSchema } from './fields';

/**
 * A fleet file as a caller sends it: any JSON object. Deliberately not the fleet schema: the
 * handlers run the fleet validator, which names every problem by field (and `fleets.validate`
 * returns them as its answer rather than as an error).
 */
export const fleetFileInputSchema: z.ZodType<Record<string, unknown>> = jsonObjectSchema;

/** A stored fleet file as written (defaults not filled in); it passed the fleet schema when saved. */
export const fleetFileSchema: z.ZodType<FleetInput> = fleetSchema;

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

/** A tool an MCP server lists, as the builder shows it for ticking. */
export const toolServerToolSchema = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.json()),
});
export type ToolServerTool = z.infer<typeof toolServerToolSchema>;

export const fleetChannels = {
  'fleets.list': query(
    z.object({}).strict(),
    z.array(fleetSummarySchema),
    'Saved fleets and the shipped examples.',
  ),
  'fleets.get': query(
    z.object({ id: idSchema }).strict(),
    z.object({ summary: fleetSummarySchema, fleet: fleetFileSchema }),
    'One fleet file, as written (defaults not filled in).',
  ),
  'fleets.save': command(
    z
      .object({
        id: idSchema.optional(),
        /** A new fleet copied from this one: its masked MCP secrets take that fleet's values. */
        copyOf: idSchema.optional(),
        fleet: fleetFileInputSchema,
      })
      .strict(),
    fleetSummarySchema,
    'Save a fleet (validated first): a new one without an id, or replace the saved fleet with that id. MCP secrets shown as markers keep their saved values (those of `copyOf` for a copy).',
  ),
  'fleets.delete': command(
    z.object({ id: idSchema }).strict(),
    z.object({ deleted: z.boolean() }),
    'Delete a saved fleet.',
  ),
  'fleets.testToolServer': query(
    z
      .object({
        /** The saved fleet the server belongs to: its env and header values fill the markers. */
        fleetId: idSchema.optional(),
        name: mcpServerNameSchema.max(32),
        /** The server as the fleet file has it (`{ command, args, env }` or `{ url, headers }`). */
        server: jsonObjectSchema,
      })
      .strict(),
    z.object({ tools: z.array(toolServerToolSchema), durationMs: z.number().nonnegative() }),
    'Start an MCP server, list its tools with their descriptions and input schemas, and stop it. ' +
      'Refused (unavailable) with the reason when it does not start; secrets never come back.',
  ),
  'fleets.validate': query(
    z.object({ fleet: fleetFileInputSchema }).strict(),
    z.object({ errors: z.array(fleetIssueSchema), warnings: z.array(fleetIssueSchema) }),
    'Check a fleet without saving it.',
  ),
} as const;
