import { USER, type TeamSpec } from '@shared/domain';
import { agentName } from './build-events';
import { convertAutogenMessages, speakers, taskOf } from './autogen-messages';
import type { ForeignConversation, ForeignMessage } from './conversation';
import { TransferError } from './transfer-error';
import { isRecord, jsonPath, titleFrom } from './validate';

const NO_STOP_REASON = 'Imported from AutoGen; the file does not record why the run stopped.';

/** Where a TaskResult's messages are: the document itself (a dumped list) or its `messages`. */
export function taskResultMessages(
  value: unknown,
): { messages: unknown[]; path: string; stopReason: unknown } | null {
  if (Array.isArray(value)) return { messages: value, path: '$', stopReason: null };
  if (isRecord(value) && Array.isArray(value.messages)) {
    return { messages: value.messages, path: '$.messages', stopReason: value.stop_reason };
  }
  return null;
}

/** A TaskResult, or the bare `[message.model_dump(), ...]` list apps save from one. */
export function importAutogenTaskResult(value: unknown, fallbackTime: number): ForeignConversation {
  const found = taskResultMessages(value);
  if (!found)
    throw new TransferError('invalid-input', 'Invalid file at $: expected an AutoGen message list.');
  const messages = convertAutogenMessages(found.messages, found.path);
  const stopMessage = messages.findLast((message) => message.kind === 'stop');
  const stopReason =
    typeof found.stopReason === 'string' && found.stopReason
      ? found.stopReason
      : (stopMessage?.content ?? NO_STOP_REASON);
  const agents = speakers(messages);
  return conversation(messages, agents, { pattern: 'round-robin', order: agents }, stopReason, fallbackTime);
}

/**
 * A saved `team.save_state()`. The manager's message_thread is the timeline; the containers name
 * the agents in team order (keys are `name/<team id>` in 0.4.x, plain names later). Per-agent
 * llm_context repeats the thread from each agent's view and is not imported.
 */
export function importAutogenTeamState(value: unknown, fallbackTime: number): ForeignConversation {
  const states = isRecord(value) ? value.agent_states : undefined;
  if (!isRecord(states))
    throw new TransferError('invalid-input', 'Invalid file at $.agent_states: expected an object.');
  let thread: { key: string; state: Record<string, unknown> } | null = null;
  const declared: string[] = [];
  for (const [key, state] of Object.entries(states)) {
    if (!isRecord(state)) continue;
    if (Array.isArray(state.message_thread)) thread ??= { key, state };
    else if (state.type === 'ChatAgentContainerState') declared.push(agentName(key.split('/')[0] ?? key));
  }
  if (!thread) {
    throw new TransferError(
      'invalid-input',
      'Invalid file at $.agent_states: no group chat manager with a message_thread was found.',
    );
  }
  const path = jsonPath('$', 'agent_states', thread.key, 'message_thread');
  const messages = convertAutogenMessages(thread.state.message_thread as unknown[], path);
  const agents = speakers(
    messages,
    declared.filter((name) => name !== USER),
  );
  const stopMessage = messages.findLast((message) => message.kind === 'stop');
  const team = teamFor(String(thread.state.type ?? ''), agents);
  return conversation(messages, agents, team, stopMessage?.content ?? NO_STOP_REASON, fallbackTime);
}

function teamFor(managerType: string, agents: string[]): TeamSpec {
  if (managerType.startsWith('Swarm'))
    return { pattern: 'swarm', start: agents[0] ?? 'assistant', handoffs: {} };
  if (managerType.startsWith('Selector') || managerType.startsWith('MagenticOne')) {
    return { pattern: 'selector', rules: [], allowRepeatedSpeaker: false };
  }
  return { pattern: 'round-robin', order: agents };
}

function conversation(
  messages: ForeignMessage[],
  agents: string[],
  team: TeamSpec,
  stopReason: string,
  fallbackTime: number,
): ForeignConversation {
  const earliest = messages.reduce((min, message) => Math.min(min, message.at ?? Infinity), Infinity);
  const task = taskOf(messages);
  return {
    title: titleFrom(task, 'Imported AutoGen run'),
    task,
    agents,
    team,
    messages,
    stopReason,
    createdAt: Number.isFinite(earliest) ? earliest : fallbackTime,
  };
}
