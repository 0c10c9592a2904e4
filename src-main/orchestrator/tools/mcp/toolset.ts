import {
  fleetMembers,
  MCP_ALL_TOOLS,
  needsApproval,
  parseMcpToolRef,
  type Fleet,
  type McpServerSpec,
} from '@shared/domain';
import type { ToolRegistry } from '../registry';
import { ToolServerFault, type Tool } from '../tool';
import { McpServerConnection, type McpToolInfo } from './connection';

/** A server that could not be started, or a tool an agent names that its server does not have. */
export interface ToolsetProblem {
  server: string;
  message: string;
}

export interface ToolsetOpening {
  /** Servers that did not start: their tools answer every call with the reason. */
  failed: ToolsetProblem[];
  /** Tools agents name that a started server does not offer: the run cannot go on. */
  missing: ToolsetProblem[];
}

/** Each server the fleet's agents use, with the tool names they name on it (`*` for all). */
export function serversInUse(fleet: Fleet): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  for (const { agent } of fleetMembers(fleet)) {
    for (const name of agent.tools) {
      const ref = parseMcpToolRef(name);
      if (ref === null) continue;
      const tools = used.get(ref.server) ?? new Set<string>();
      tools.add(ref.tool);
      used.set(ref.server, tools);
    }
  }
  return used;
}

function mcpTool(
  server: string,
  spec: McpServerSpec,
  info: McpToolInfo,
  connection: McpServerConnection,
): Tool {
  return {
    name: `${server}/${info.name}`,
    description: info.description,
    parameters: info.inputSchema,
    server,
    requiresApproval: needsApproval(spec, info.name),
    execute: (args, context) => connection.call(info.name, args, context.signal),
  };
}

/** A tool of a server that did not start: every call is told why. */
function unavailableTool(server: string, spec: McpServerSpec, tool: string, fault: string): Tool {
  return {
    name: `${server}/${tool}`,
    description: `(unavailable: ${fault})`,
    parameters: { type: 'object' },
    server,
    requiresApproval: needsApproval(spec, tool),
    execute: () => {
      throw new ToolServerFault(fault);
    },
  };
}

/**
 * The MCP servers of one run (or continuation): `open` starts those the agents use, in parallel,
 * and registers their tools; `close` ends them all. One server per run, shared by its agents.
 */
export class McpToolset {
  private readonly connections: McpServerConnection[] = [];
  /** Ids of the processes `close` ended (stdio servers and everything they started). */
  readonly endedProcesses: number[] = [];

  constructor(private readonly fleet: Fleet) {}

  /** True when no agent uses an MCP tool (nothing to start). */
  get empty(): boolean {
    return serversInUse(this.fleet).size === 0;
  }

  async open(registry: ToolRegistry, signal?: AbortSignal): Promise<ToolsetOpening> {
    const servers = this.fleet.mcpServers ?? {};
    const opening: ToolsetOpening = { failed: [], missing: [] };
    await Promise.all(
      [...serversInUse(this.fleet)].map(async ([server, named]) => {
        const spec = servers[server];
        if (spec === undefined) return;
        const connection = new McpServerConnection(server, spec);
        this.connections.push(connection);
        try {
          const tools = await connection.start(signal);
          for (const info of tools) registry.register(mcpTool(server, spec, info, connection));
          const offered = new Set(tools.map((tool) => tool.name));
          for (const tool of named) {
            if (tool === MCP_ALL_TOOLS || offered.has(tool)) continue;
            const list = [...offered].join(', ') || 'none';
            opening.missing.push({
              server,
              message: `"${server}/${tool}": the server "${server}" has no tool "${tool}" (its tools: ${list})`,
            });
          }
        } catch (error) {
          const fault = error instanceof Error ? error.message : String(error);
          opening.failed.push({ server, message: fault });
          registry.registerServerFault(server, fault);
          for (const tool of named)
            if (tool !== MCP_ALL_TOOLS) registry.register(unavailableTool(server, spec, tool, fault));
        }
      }),
    );
    return opening;
  }

  /** Ends every server (stdio process trees included); resolves once they are gone. */
  async close(): Promise<void> {
    const connections = this.connections.splice(0);
    const ended = await Promise.all(connections.map((connection) => connection.close()));
    this.endedProcesses.push(...ended.flat());
  }
}
