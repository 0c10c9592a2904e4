import { fleetMembers, isStdioServer, parseMcpToolRef, type Fleet, type McpServerSpec } from '@shared/domain';

/** A server as its form edits it: text fields and rows, turned into a spec by `draftToSpec`. */
export interface ServerDraft {
  name: string;
  transport: 'stdio' | 'http';
  command: string;
  /** One argument per line (so paths may hold spaces). */
  args: string;
  cwd: string;
  url: string;
  /** Env (stdio) or headers (HTTP): values are secrets, shown as markers until changed. */
  values: Array<{ key: string; value: string }>;
  /** Ask a person before each call; a list keeps naming only those tools. */
  requireApproval: boolean | string[];
}

export function emptyDraft(): ServerDraft {
  return {
    name: '',
    transport: 'stdio',
    command: '',
    args: '',
    cwd: '',
    url: '',
    values: [],
    requireApproval: false,
  };
}

export function specToDraft(name: string, spec: McpServerSpec): ServerDraft {
  const stdio = isStdioServer(spec);
  const values = stdio ? spec.env : spec.headers;
  return {
    name,
    transport: stdio ? 'stdio' : 'http',
    command: stdio ? spec.command : '',
    args: stdio ? spec.args.join('\n') : '',
    cwd: stdio ? (spec.cwd ?? '') : '',
    url: stdio ? '' : spec.url,
    values: Object.entries(values).map(([key, value]) => ({ key, value })),
    requireApproval: spec.requireApproval ?? false,
  };
}

/** The spec a draft stands for (unchecked: the fleet validator names what is wrong). */
export function draftToSpec(draft: ServerDraft, previous?: McpServerSpec): McpServerSpec {
  const values = Object.fromEntries(
    draft.values.filter((row) => row.key.trim() !== '').map((row) => [row.key.trim(), row.value]),
  );
  const common = {
    ...(draft.requireApproval !== false ? { requireApproval: draft.requireApproval } : {}),
    ...(previous?.timeoutMs !== undefined ? { timeoutMs: previous.timeoutMs } : {}),
  };
  if (draft.transport === 'http') return { url: draft.url.trim(), headers: values, ...common };
  return {
    command: draft.command.trim(),
    args: draft.args
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== ''),
    env: values,
    ...(draft.cwd.trim() !== '' ? { cwd: draft.cwd.trim() } : {}),
    ...common,
  };
}

/** The agents of the fleet, nested teams included, whose tool lists name tools of `server`. */
function eachAgentTools(fleet: Fleet, change: (tools: string[]) => string[]): void {
  for (const { agent } of fleetMembers(fleet)) agent.tools = change(agent.tools);
}

/** Adds or replaces a server (renamed from `previous`: agents' `previous/...` follow). */
export function putServer(fleet: Fleet, previous: string | null, name: string, spec: McpServerSpec): void {
  const servers = { ...(fleet.mcpServers ?? {}) };
  if (previous !== null && previous !== name) {
    delete servers[previous];
    eachAgentTools(fleet, (tools) =>
      tools.map((tool) => {
        const ref = parseMcpToolRef(tool);
        return ref?.server === previous ? `${name}/${ref.tool}` : tool;
      }),
    );
  }
  servers[name] = spec;
  fleet.mcpServers = servers;
}

/** Removes a server and every agent's ticks of its tools. */
export function removeServer(fleet: Fleet, name: string): void {
  const servers = { ...(fleet.mcpServers ?? {}) };
  delete servers[name];
  if (Object.keys(servers).length > 0) fleet.mcpServers = servers;
  else delete fleet.mcpServers;
  eachAgentTools(fleet, (tools) => tools.filter((tool) => parseMcpToolRef(tool)?.server !== name));
}
