import type { ToolSpec } from '../../llm';

export const HANDOFF_TOOL_PREFIX = 'transfer_to_';

export function handoffToolName(target: string): string {
  return `${HANDOFF_TOOL_PREFIX}${target}`;
}

/** The target of a handoff tool name, or null when the name is not one. */
export function handoffTarget(toolName: string, targets: readonly string[]): string | null {
  if (!toolName.startsWith(HANDOFF_TOOL_PREFIX)) return null;
  const target = toolName.slice(HANDOFF_TOOL_PREFIX.length);
  return targets.includes(target) ? target : null;
}

export function handoffToolSpecs(targets: readonly string[], describe: (name: string) => string): ToolSpec[] {
  return targets.map((target) => ({
    name: handoffToolName(target),
    description: `Hand the conversation to ${target}. ${describe(target)}`.trim(),
    parameters: { type: 'object', properties: {} },
  }));
}
