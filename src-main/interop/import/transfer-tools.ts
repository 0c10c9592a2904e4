import { agentName } from './build-events';

/**
 * Swarm and the OpenAI Agents SDK hand off by calling a tool named `transfer_to_<agent>` /
 * `transfer_back_to_<agent>`; the agent a call of that name hands off to, else null.
 */
const TRANSFER = /^transfer_(?:back_)?to_(.+?)(?:_agent)?$/;

export function transferTarget(toolName: string): string | null {
  const match = TRANSFER.exec(toolName);
  return match?.[1] ? agentName(match[1]) : null;
}
