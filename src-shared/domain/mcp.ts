import { z } from 'zod';
import { httpUrlSchema } from './url';

/** MCP server names are the `server` of `server/tool`: short, no slash. */
export const mcpServerNameSchema = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]{0,31}$/,
    'must start with a letter and use only letters, digits, _ or - (32 at most)',
  );

/**
 * Who must approve a call before it goes to the server: `true` every tool of the server, a list
 * only those tools (by their names on the server), `false` (default) none.
 */
const approvalSchema = z.union([z.boolean(), z.array(z.string().min(1))]);

/** Milliseconds a call (or the start) may take before the calling agent gets a timeout error. */
const timeoutSchema = z.number().int().positive().max(3_600_000);

const commonServerFields = {
  requireApproval: approvalSchema.optional(),
  timeoutMs: timeoutSchema.optional(),
};

/** A server Fleetscope starts as a child process and talks to over stdin/stdout. */
export const mcpStdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Added to a minimal environment (PATH, HOME...). Values are secrets: masked wherever keys are. */
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  /** Accepted for pasted desktop configs; the shape decides the transport. */
  type: z.literal('stdio').optional(),
  ...commonServerFields,
});

/** A server reached over Streamable HTTP. Header values are secrets: masked wherever keys are. */
export const mcpHttpServerSchema = z.strictObject({
  url: httpUrlSchema,
  headers: z.record(z.string(), z.string()).default({}),
  type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
  ...commonServerFields,
});

export const mcpServerSchema = z.union([mcpStdioServerSchema, mcpHttpServerSchema]);
export type McpServerSpec = z.infer<typeof mcpServerSchema>;
export type McpStdioServerSpec = z.infer<typeof mcpStdioServerSchema>;
export type McpHttpServerSpec = z.infer<typeof mcpHttpServerSchema>;

export const mcpServersSchema = z.record(mcpServerNameSchema, mcpServerSchema);

/** What a run does after a tool server fails to start, dies or times out (the agent is told either way). */
export const toolServerErrorPolicySchema = z.enum(['continue', 'stop']);
export type ToolServerErrorPolicy = z.infer<typeof toolServerErrorPolicySchema>;

/** A JSON value in a scripted tool call's arguments. */
export type ToolArgument =
  string | number | boolean | null | ToolArgument[] | { [key: string]: ToolArgument };
const toolArgumentSchema: z.ZodType<ToolArgument> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(toolArgumentSchema),
    z.record(z.string(), toolArgumentSchema),
  ]),
);
/** The arguments object of a scripted tool call. */
export const toolArgumentsSchema = z.record(z.string(), toolArgumentSchema);

/** `server/*` in an agent's tools: every tool the server offers. */
export const MCP_ALL_TOOLS = '*';

/** An agent's tool entry naming an MCP tool. */
export interface McpToolRef {
  server: string;
  /** The tool's name on the server, or `*`. */
  tool: string;
}

/** `server/tool` or `server/*` as a reference; null for a built-in tool's name. */
export function parseMcpToolRef(name: string): McpToolRef | null {
  const slash = name.indexOf('/');
  if (slash <= 0 || slash === name.length - 1) return null;
  return { server: name.slice(0, slash), tool: name.slice(slash + 1) };
}

export function isStdioServer(spec: McpServerSpec): spec is McpStdioServerSpec {
  return 'command' in spec;
}

/** Whether a call of `tool` on this server waits for a person's approval. */
export function needsApproval(spec: Pick<McpServerSpec, 'requireApproval'>, tool: string): boolean {
  const rule = spec.requireApproval ?? false;
  return rule === true || (Array.isArray(rule) && rule.includes(tool));
}

/** The secret values of the servers' configurations (env values and header values), labelled. */
export function mcpSecrets(
  servers: Readonly<Record<string, McpServerSpec>>,
): Array<{ value: string; label: string }> {
  const secrets: Array<{ value: string; label: string }> = [];
  for (const [name, spec] of Object.entries(servers)) {
    const values = isStdioServer(spec) ? spec.env : spec.headers;
    const field = isStdioServer(spec) ? 'env' : 'headers';
    for (const [key, value] of Object.entries(values)) {
      const label = `mcpServers.${name}.${field}.${key}`;
      secrets.push({ value, label });
      // `Bearer <token>`: the token alone is masked too, wherever it shows up without its scheme.
      const token = /^(?:Bearer|Basic|Token)\s+(\S+)$/i.exec(value)?.[1];
      if (token !== undefined) secrets.push({ value: token, label });
    }
  }
  return secrets;
}

/** What stands in for a secret value of a server's env or headers outside the main process. */
export function maskedSecretValue(server: string, field: 'env' | 'headers', key: string): string {
  return `[masked mcpServers.${server}.${field}.${key}]`;
}

type ServersHolder = { mcpServers?: Record<string, unknown> | undefined };

/** Maps each server's env or headers values (an unparsed fleet file is read defensively). */
function mapServerSecrets<F extends ServersHolder>(
  fleet: F,
  map: (server: string, field: 'env' | 'headers', key: string, value: string) => string,
): F {
  if (fleet.mcpServers === undefined || fleet.mcpServers === null) return fleet;
  const servers: Record<string, unknown> = {};
  for (const [server, spec] of Object.entries(fleet.mcpServers)) {
    if (spec === null || typeof spec !== 'object') {
      servers[server] = spec;
      continue;
    }
    const copy: Record<string, unknown> = { ...(spec as Record<string, unknown>) };
    for (const field of ['env', 'headers'] as const) {
      const values = copy[field];
      if (values === null || typeof values !== 'object') continue;
      copy[field] = Object.fromEntries(
        Object.entries(values as Record<string, unknown>).map(([key, value]) => [
          key,
          typeof value === 'string' ? map(server, field, key, value) : value,
        ]),
      );
    }
    servers[server] = copy;
  }
  return { ...fleet, mcpServers: servers };
}

/** The fleet with every env and header value of its servers replaced by its marker (for the renderer). */
export function maskFleetSecrets<F extends ServersHolder>(fleet: F): F {
  return mapServerSecrets(fleet, (server, field, key) => maskedSecretValue(server, field, key));
}

/**
 * A fleet coming back from the renderer: each value still equal to its marker takes the value
 * the saved fleet has there (a changed value is the user's new secret).
 */
export function restoreFleetSecrets<F extends ServersHolder>(fleet: F, saved: ServersHolder | null): F {
  const savedServers = (saved?.mcpServers ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
  return mapServerSecrets(fleet, (server, field, key, value) => {
    if (value !== maskedSecretValue(server, field, key)) return value;
    const original = savedServers[server]?.[field]?.[key];
    return typeof original === 'string' ? original : value;
  });
}

/** Where a fleet still holds a marker in place of a server's env or header value (`server.env.KEY`). */
export function maskedSecretPlaces(fleet: ServersHolder): string[] {
  const places: string[] = [];
  mapServerSecrets(fleet, (server, field, key, value) => {
    if (value === maskedSecretValue(server, field, key)) places.push(`${server}.${field}.${key}`);
    return value;
  });
  return places;
}

/** How a tool call's name is shown to people: the model's `server__tool` as `server/tool`, others as they are. */
export function displayToolName(name: string): string {
  const at = name.indexOf('__');
  return at > 0 ? `${name.slice(0, at)}/${name.slice(at + 2)}` : name;
}
