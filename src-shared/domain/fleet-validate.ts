import type { z } from 'zod';
import { fleetMembers, fleetSchema, type Fleet, type TerminationSpec } from './fleet';
import { MCP_ALL_TOOLS, needsApproval, parseMcpToolRef } from './mcp';
import { USER } from './message';

/** A problem in a fleet file; `path` names the field, e.g. `agents[2].provider`. */
export interface FleetIssue {
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

export type FleetParseResult =
  { ok: true; fleet: Fleet; warnings: FleetIssue[] } | { ok: false; issues: FleetIssue[] };

export interface FleetValidationOptions {
  /** Tool names the runtime offers; when given, agents naming other tools are errors. */
  knownTools?: readonly string[];
  /** The servers `server/tool` names refer to (nested fleets use the top fleet's; default: the fleet's own). */
  mcpServers?: Readonly<Record<string, unknown>>;
}

/** The cap a fleet without a termination condition runs under. */
export const DEFAULT_MAX_MESSAGES = 50;

/** Patterns that only end by a termination condition. */
const OPEN_ENDED_PATTERNS = new Set(['round-robin', 'selector', 'swarm']);

export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`;
    else text += text.length === 0 ? String(part) : `.${String(part)}`;
  }
  return text.length === 0 ? '(fleet)' : text;
}

function zodIssues(error: z.ZodError, prefix: string): FleetIssue[] {
  return error.issues.map((issue) => ({
    path: join(prefix, formatPath(issue.path)),
    message: issue.message,
    severity: 'error' as const,
  }));
}

function join(prefix: string, path: string): string {
  if (prefix.length === 0) return path;
  if (path === '(fleet)') return prefix;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}

/** Whether an agent's tools list offers `name` (listed itself, or through its server's `server/*`). */
export function offersTool(tools: readonly string[], name: string): boolean {
  if (tools.includes(name)) return true;
  const ref = parseMcpToolRef(name);
  return ref !== null && tools.includes(`${ref.server}/${MCP_ALL_TOOLS}`);
}

/**
 * The MCP tools of the fleet that wait for a person's approval before each call, as agents name
 * them (`server/tool`, or `server/*` when the whole server or some of its tools need it).
 */
export function toolsNeedingApproval(fleet: Fleet): string[] {
  const servers = fleet.mcpServers ?? {};
  const found = new Set<string>();
  for (const { agent } of fleetMembers(fleet))
    for (const name of agent.tools) {
      const ref = parseMcpToolRef(name);
      const spec = ref ? servers[ref.server] : undefined;
      if (ref === null || spec === undefined) continue;
      const rule = spec.requireApproval ?? false;
      if (
        rule === true ||
        (Array.isArray(rule) && rule.length > 0 && ref.tool === MCP_ALL_TOOLS) ||
        needsApproval(spec, ref.tool)
      )
        found.add(name);
    }
  return [...found];
}

/**
 * Reads a fleet's shape (the schema, defaults applied) without the cross-field rules: for a fleet
 * about to run, whose rules `checkFleetToRun` checks once the run's changes are applied.
 */
export function parseFleetShape(
  input: unknown,
): { ok: true; fleet: Fleet } | { ok: false; issues: FleetIssue[] } {
  const parsed = fleetSchema.safeParse(input);
  return parsed.success
    ? { ok: true, fleet: parsed.data }
    : { ok: false, issues: zodIssues(parsed.error, '') };
}

/** Parses a fleet file's JSON value: schema first, then the cross-field rules. */
export function parseFleet(input: unknown, options: FleetValidationOptions = {}): FleetParseResult {
  const parsed = parseFleetShape(input);
  if (!parsed.ok) return parsed;
  const issues = validateFleet(parsed.fleet, options);
  const errors = issues.filter((issue) => issue.severity === 'error');
  if (errors.length > 0) return { ok: false, issues: errors };
  return { ok: true, fleet: parsed.fleet, warnings: issues };
}

/** Rules the schema cannot express: unique names, references that must exist, providers. */
export function validateFleet(fleet: Fleet, options: FleetValidationOptions = {}, prefix = ''): FleetIssue[] {
  const issues: FleetIssue[] = [];
  const error = (path: string, message: string) =>
    issues.push({ path: join(prefix, path), message, severity: 'error' });
  const warning = (path: string, message: string) =>
    issues.push({ path: join(prefix, path), message, severity: 'warning' });

  const servers = options.mcpServers ?? fleet.mcpServers ?? {};
  const nestedOptions = { ...options, mcpServers: servers };
  const names = new Set<string>();
  fleet.agents.forEach((agent, index) => {
    const at = `agents[${index}]`;
    if (agent.name === USER) error(`${at}.name`, `"${USER}" is reserved for the person who gives the task`);
    else if (names.has(agent.name)) error(`${at}.name`, `another agent is already named "${agent.name}"`);
    names.add(agent.name);
    switch (agent.type) {
      case 'llm':
        if (!agent.provider) error(`${at}.provider`, 'an llm agent needs a provider (id and model)');
        break;
      case 'scripted':
        if (!agent.script || agent.script.length === 0)
          error(`${at}.script`, 'a scripted agent needs at least one reply');
        break;
      case 'team':
        if (!agent.fleet) error(`${at}.fleet`, 'a team agent needs a nested fleet');
        else issues.push(...validateFleet(agent.fleet, nestedOptions, join(prefix, `${at}.fleet`)));
        break;
      case 'human':
        break;
    }
    agent.tools.forEach((tool, toolIndex) => {
      const ref = parseMcpToolRef(tool);
      if (ref !== null && !Object.hasOwn(servers, ref.server)) {
        const known = Object.keys(servers);
        error(
          `${at}.tools[${toolIndex}]`,
          `"${tool}" names the MCP server "${ref.server}", which is not in mcpServers` +
            (known.length > 0 ? ` (servers: ${known.join(', ')})` : ''),
        );
      }
    });
    agent.script?.forEach((reply, replyIndex) =>
      reply.toolCalls?.forEach((call, callIndex) => {
        if (!offersTool(agent.tools, call.name))
          error(
            `${at}.script[${replyIndex}].toolCalls[${callIndex}].name`,
            `"${call.name}" is not among ${agent.name}'s tools; add it to the agent's tools`,
          );
      }),
    );
    if (options.knownTools) {
      agent.tools.forEach((tool, toolIndex) => {
        if (parseMcpToolRef(tool) === null && !options.knownTools?.includes(tool)) {
          error(
            `${at}.tools[${toolIndex}]`,
            `unknown tool "${tool}" (known: ${options.knownTools?.join(', ')})`,
          );
        }
      });
    }
  });

  const agentRef = (path: string, name: string | undefined, what: string) => {
    if (name !== undefined && !names.has(name))
      error(path, `${what} "${name}" is not an agent in this fleet`);
  };
  const team = fleet.team;
  switch (team.pattern) {
    case 'sequential':
    case 'round-robin':
      team.order?.forEach((name, index) => agentRef(`team.order[${index}]`, name, 'member'));
      if (team.order?.length === 0) error('team.order', 'the order needs at least one agent');
      break;
    case 'selector':
      team.rules.forEach((rule, index) => {
        rule.candidates.forEach((name, candidate) =>
          agentRef(`team.rules[${index}].candidates[${candidate}]`, name, 'candidate'),
        );
        if (rule.from !== undefined && rule.from !== USER)
          agentRef(`team.rules[${index}].from`, rule.from, 'sender');
      });
      agentRef('team.fallback', team.fallback, 'fallback');
      break;
    case 'swarm':
      agentRef('team.start', team.start, 'start agent');
      for (const [source, targets] of Object.entries(team.handoffs)) {
        agentRef(`team.handoffs.${source}`, source, 'handoff source');
        targets.forEach((target, index) => {
          if (target !== USER) agentRef(`team.handoffs.${source}[${index}]`, target, 'handoff target');
        });
      }
      break;
    case 'parallel':
      team.workers.forEach((name, index) => agentRef(`team.workers[${index}]`, name, 'worker'));
      agentRef('team.aggregator', team.aggregator, 'aggregator');
      if (team.workers.includes(team.aggregator))
        error('team.aggregator', 'the aggregator cannot also be a worker');
      break;
  }

  if (fleet.termination) checkTermination(fleet.termination, 'termination', names, error);
  else if (OPEN_ENDED_PATTERNS.has(team.pattern)) {
    warning('termination', `no termination condition: the run stops after ${DEFAULT_MAX_MESSAGES} messages`);
  }
  for (const name of Object.keys(fleet.layout)) {
    if (!names.has(name))
      warning(`layout.${name}`, `layout names "${name}", which is not an agent in this fleet`);
  }
  return issues;
}

function checkTermination(
  spec: TerminationSpec,
  path: string,
  names: ReadonlySet<string>,
  error: (path: string, message: string) => void,
): void {
  const source = (sourcePath: string, name: string) => {
    if (name !== USER && !names.has(name)) error(sourcePath, `"${name}" is not an agent in this fleet`);
  };
  switch (spec.type) {
    case 'handoff':
      source(`${path}.target`, spec.target);
      break;
    case 'text-mention':
      spec.sources?.forEach((name, index) => source(`${path}.sources[${index}]`, name));
      break;
    case 'source-match':
      spec.sources.forEach((name, index) => source(`${path}.sources[${index}]`, name));
      break;
    case 'and':
    case 'or':
      spec.conditions.forEach((child, index) =>
        checkTermination(child, `${path}.conditions[${index}]`, names, error),
      );
      break;
    case 'agent-token-budget':
      spec.agents?.forEach((name, index) => source(`${path}.agents[${index}]`, name));
      break;
    case 'max-messages':
    case 'token-budget':
    case 'cost-budget':
    case 'timeout':
    case 'stop-message':
    case 'external':
      break;
  }
}
