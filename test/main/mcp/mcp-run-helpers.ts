import type { FleetInput, McpServerSpec, RunEvent, ScriptedReply, ToolArgument } from '@shared/domain';
import type { McpToolset } from '../../../src-main/orchestrator/tools';
import { fleet, ofKind, run, scripted, type RunOptions } from '../../helpers/fleet-builders';

/** One scripted agent with these tools saying these replies, beside the given servers. */
export function toolFleet(
  servers: Record<string, McpServerSpec>,
  tools: string[],
  replies: ScriptedReply[],
  extra: Partial<FleetInput> = {},
) {
  return fleet({
    mcpServers: servers,
    agents: [scripted('worker', replies, { tools })],
    team: { pattern: 'sequential' },
    ...extra,
  });
}

/** A reply that calls one tool and then says `content`. */
export function call(name: string, args: Record<string, ToolArgument> = {}, content = ''): ScriptedReply {
  return { content, toolCalls: [{ name, arguments: args }] };
}

/** Runs a fleet; `pids()` are the processes its MCP servers ran as (all of each tree), once it ended. */
export function runWithServers(options: RunOptions) {
  const toolsets: McpToolset[] = [];
  const started = run({ ...options, onToolServers: (opened) => toolsets.push(opened) });
  return { ...started, pids: () => toolsets.flatMap((toolset) => toolset.endedProcesses) };
}

/** The tool results of a run, in order. */
export function results(events: readonly RunEvent[]) {
  return ofKind(events, 'tool.executed').map((event) => event.payload);
}
