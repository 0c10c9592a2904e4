import { z } from 'zod';
import { mcpServersSchema, toolArgumentsSchema, toolServerErrorPolicySchema } from './mcp';
import { messageKindSchema, MESSAGE_KINDS } from './message';
import { httpUrlSchema } from './url';

export const FLEET_FILE_VERSION = 1;

/** Agent names are ids: used as `to`, in routes, handoff tools (`transfer_to_<name>`) and edges. */
export const agentNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'must start with a letter and use only letters, digits, _ or -');

/** Where an agent's model lives. `scripted` is built in and needs no key. */
export const providerRefSchema = z.object({
  /** Preset id: scripted, openai, azure, ollama, lmstudio, vllm, llamacpp, openrouter, custom. */
  id: z.string().min(1),
  baseUrl: httpUrlSchema.optional(),
  /** Name of the environment variable holding the API key. The key itself never appears in a fleet. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name')
    .optional(),
  model: z.string().min(1),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
});
export type ProviderRef = z.infer<typeof providerRefSchema>;

/** One canned reply of a scripted agent. */
export const scriptedReplySchema = z.object({
  /** The text; `{{task}}` is replaced by the run's task (its first line, shortened). */
  content: z.string(),
  /**
   * Tool calls made before `content` is said: `name` as in the agent's tools (`server/tool` or a
   * built-in), `arguments` the JSON object passed. The results are recorded like a model's calls.
   */
  toolCalls: z
    .array(z.object({ name: z.string().min(1), arguments: toolArgumentsSchema.default({}) }))
    .optional(),
  kind: messageKindSchema.optional(),
  /** Receiver; defaults to the team's routing. */
  to: z.string().optional(),
  /** Hand the conversation to this agent (swarm). */
  handoff: z.string().optional(),
  /** Simulated streaming: characters per chunk and milliseconds between chunks. */
  chunkSize: z.number().int().positive().optional(),
  delayMs: z.number().int().nonnegative().optional(),
});
export type ScriptedReply = z.infer<typeof scriptedReplySchema>;

const AGENT_TYPES = ['llm', 'human', 'scripted', 'team'] as const;
export const agentTypeSchema = z.enum(AGENT_TYPES);

export const agentSpecSchema = z.object({
  name: agentNameSchema,
  type: agentTypeSchema.default('llm'),
  description: z.string().default(''),
  role: z.string().default(''),
  systemPrompt: z.string().default(''),
  provider: providerRefSchema.optional(),
  /** Built-in tool names, and MCP tools as `server/tool` or `server/*` (servers in `mcpServers`). */
  tools: z.array(z.string()).default([]),
  /** Kinds this agent accepts; a direct message of another kind is answered with an error. */
  acceptedKinds: z.array(messageKindSchema).default([...MESSAGE_KINDS]),
  receiveOwnBroadcasts: z.boolean().default(false),
  /** For scripted agents: replies in order, cycling when `loop` is set. */
  script: z.array(scriptedReplySchema).optional(),
  loop: z.boolean().optional(),
  /**
   * For scripted replies: a typing pace in characters per second, so a demo streams at a speed a
   * person can follow. A reply's own `delayMs` wins; without either, replies stream at once.
   */
  charsPerSecond: z.number().positive().max(10_000).optional(),
  /** For team agents: the nested fleet. */
  get fleet() {
    return fleetSchema.optional();
  },
});
export type AgentSpec = z.infer<typeof agentSpecSchema>;

export const routeRuleSchema = z.object({
  /** Matches when the last message's content contains this text (case-insensitive). */
  contains: z.string().optional(),
  kind: messageKindSchema.optional(),
  from: z.string().optional(),
  candidates: z.array(z.string()).min(1),
});
export type RouteRule = z.infer<typeof routeRuleSchema>;

export const teamSpecSchema = z.discriminatedUnion('pattern', [
  z.object({ pattern: z.literal('sequential'), order: z.array(z.string()).optional() }),
  z.object({ pattern: z.literal('round-robin'), order: z.array(z.string()).optional() }),
  z.object({
    pattern: z.literal('selector'),
    rules: z.array(routeRuleSchema).default([]),
    /** When set, a model picks the next speaker from the agents' descriptions. */
    selector: providerRefSchema.optional(),
    fallback: z.string().optional(),
    allowRepeatedSpeaker: z.boolean().default(false),
  }),
  z.object({
    pattern: z.literal('swarm'),
    start: z.string(),
    /** agent -> agents it may hand off to; each becomes a `transfer_to_<agent>` tool. */
    handoffs: z.record(z.string(), z.array(z.string())).default({}),
  }),
  z.object({
    pattern: z.literal('parallel'),
    workers: z.array(z.string()).min(1),
    aggregator: z.string(),
  }),
]);
export type TeamSpec = z.infer<typeof teamSpecSchema>;
export type TeamPattern = TeamSpec['pattern'];

export type TerminationSpec =
  /** Counts chat messages; tool-call requests and tool results too when `countToolEvents` is set. */
  | { type: 'max-messages'; max: number; countToolEvents?: boolean }
  | { type: 'text-mention'; text: string; sources?: string[] }
  | { type: 'token-budget'; maxTokens: number }
  /** Dollars (the price table's currency) of the priced model calls; calls without a price add 0. */
  | { type: 'cost-budget'; maxCost: number }
  /** Tokens of any one agent (of `agents`, default every agent): stops when one reaches the budget. */
  | { type: 'agent-token-budget'; maxTokens: number; agents?: string[] }
  | { type: 'timeout'; seconds: number }
  | { type: 'handoff'; target: string }
  | { type: 'stop-message' }
  | { type: 'external' }
  | { type: 'source-match'; sources: string[] }
  | { type: 'and'; conditions: TerminationSpec[] }
  | { type: 'or'; conditions: TerminationSpec[] };

export const terminationSpecSchema: z.ZodType<TerminationSpec> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.object({
      type: z.literal('max-messages'),
      max: z.number().int().positive(),
      countToolEvents: z.boolean().optional(),
    }),
    z.object({
      type: z.literal('text-mention'),
      text: z.string().min(1),
      sources: z.array(z.string()).optional(),
    }),
    z.object({ type: z.literal('token-budget'), maxTokens: z.number().int().positive() }),
    z.object({ type: z.literal('cost-budget'), maxCost: z.number().positive() }),
    z.object({
      type: z.literal('agent-token-budget'),
      maxTokens: z.number().int().positive(),
      agents: z.array(z.string()).optional(),
    }),
    z.object({ type: z.literal('timeout'), seconds: z.number().positive() }),
    z.object({ type: z.literal('handoff'), target: z.string().min(1) }),
    z.object({ type: z.literal('stop-message') }),
    z.object({ type: z.literal('external') }),
    z.object({ type: z.literal('source-match'), sources: z.array(z.string()).min(1) }),
    z.object({ type: z.literal('and'), conditions: z.array(terminationSpecSchema).min(1) }),
    z.object({ type: z.literal('or'), conditions: z.array(terminationSpecSchema).min(1) }),
  ]),
);

export const positionSchema = z.object({ x: z.number(), y: z.number() });

export const fleetSchema = z.object({
  version: z.literal(FLEET_FILE_VERSION),
  name: z.string().min(1),
  description: z.string().default(''),
  agents: z.array(agentSpecSchema).min(1),
  team: teamSpecSchema,
  termination: terminationSpecSchema.optional(),
  /**
   * MCP servers by name, as desktop and editor configs keep them: `{ command, args, env, cwd }`
   * (stdio) or `{ url, headers }` (Streamable HTTP). Agents of nested teams use these too.
   */
  mcpServers: mcpServersSchema.optional(),
  /** After a tool server fails to start, dies or times out: go on (default) or stop the run. */
  onToolServerError: toolServerErrorPolicySchema.optional(),
  /** Canvas positions by agent name. */
  layout: z.record(z.string(), positionSchema).default({}),
});
export type Fleet = z.infer<typeof fleetSchema>;
/** A fleet as written in a file, before defaults are applied. */
export type FleetInput = z.input<typeof fleetSchema>;

/** An agent of a fleet, nested or not, with its address: `name`, or `team/name` inside a team. */
export interface FleetMember<A> {
  address: string;
  agent: A;
}

/** Nested teams deeper than this are not followed (fleet files are far shallower). */
const MAX_FLEET_DEPTH = 64;

/**
 * Every agent of a fleet (a parsed Fleet or a FleetInput) depth first, a team agent followed by
 * the members of its nested fleet, addressed `team/member`. Pure.
 */
export function fleetMembers<A extends { name: string; fleet?: { agents: readonly A[] } | undefined }>(
  fleet: { agents: readonly A[] },
  scope = '',
): Array<FleetMember<A>> {
  const members: Array<FleetMember<A>> = [];
  const visit = (agents: readonly A[], prefix: string, depth: number) => {
    for (const agent of agents) {
      const address = `${prefix}${agent.name}`;
      members.push({ address, agent });
      if (agent.fleet && depth < MAX_FLEET_DEPTH) visit(agent.fleet.agents, `${address}/`, depth + 1);
    }
  };
  visit(fleet.agents, scope, 0);
  return members;
}

/** Every provider the fleet would call: its agents', nested teams' agents' and the selector model. */
export function fleetProviders(fleet: Fleet): ProviderRef[] {
  const own = fleetMembers(fleet).flatMap(({ agent }) => (agent.provider ? [agent.provider] : []));
  return fleet.team.pattern === 'selector' && fleet.team.selector ? [...own, fleet.team.selector] : own;
}
