import { BROADCAST, USER, fleetSchema, type Fleet, type Message } from '@shared/domain';
import { SYNTHETIC_TIMING_TAG } from '@shared/contract';
import type { ImportedEvent } from '../../history/ports';
import type { ForeignConversation, ForeignMessage } from './conversation';

const AGENT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** Participants that are never agents of the inferred fleet. */
const NOT_AGENTS = new Set([USER, BROADCAST, 'system']);

export { SYNTHETIC_TIMING_TAG };

/** Whether any message of the source carries a time of its own. */
export function hasSourceTimes(conversation: ForeignConversation): boolean {
  return conversation.messages.some((message) => message.at !== undefined);
}

/** The tags of an imported conversation: `imported`, and the synthetic-timing mark when it needs one. */
export function importedTags(conversation: ForeignConversation): string[] {
  return hasSourceTimes(conversation) ? ['imported'] : ['imported', SYNTHETIC_TIMING_TAG];
}

/**
 * Milliseconds a made-up timeline leaves after a message before the next: a second and a half to
 * take it in, plus reading time at about 40 characters a second, at most eight seconds.
 */
export function readingPause(content: string): number {
  return Math.min(8000, 1500 + Math.round(content.length * 25));
}

/** Maps a foreign participant name onto a valid agent name (letters, digits, _ and -). */
export function agentName(raw: string): string {
  if (NOT_AGENTS.has(raw) || AGENT_NAME.test(raw)) return raw;
  let name = raw.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  if (!/^[A-Za-z]/.test(name)) name = `agent_${name}`;
  return name.slice(0, 64);
}

/** The smallest valid fleet that names the agents a transcript shows, with the tools each used. */
export function inferFleet(conversation: ForeignConversation, fleetName: string, source: string): Fleet {
  const tools = new Map<string, Set<string>>();
  for (const message of conversation.messages) {
    for (const call of message.toolCalls ?? []) {
      const set = tools.get(message.from) ?? new Set<string>();
      set.add(call.name);
      tools.set(message.from, set);
    }
  }
  const names = conversation.agents.length > 0 ? conversation.agents : ['assistant'];
  return fleetSchema.parse({
    version: 1,
    name: fleetName,
    description: `Inferred from an imported ${source} transcript.`,
    agents: names.map((name) => ({
      name,
      type: 'llm',
      tools: [...(tools.get(name) ?? [])],
      ...(conversation.systemPrompts?.[name] ? { systemPrompt: conversation.systemPrompts[name] } : {}),
    })),
    team: conversation.agents.length > 0 ? conversation.team : { pattern: 'sequential' },
  });
}

/**
 * Turns a normalized transcript into the event log a live run would have written (minus deltas):
 * session.started with the inferred fleet, then per message message.started, message.completed,
 * tool.executed (for results it carries), tool.requested (for calls it makes) and handoff,
 * and finally session.stopped. Lazy: events are made as the store pulls them.
 */
export function* buildImportedEvents(
  conversation: ForeignConversation,
  fleet: Fleet,
): Generator<ImportedEvent> {
  yield {
    t: 0,
    agent: null,
    kind: 'session.started',
    payload: {
      title: conversation.title,
      task: conversation.task,
      fleetName: fleet.name,
      fleet,
      parentSessionId: null,
      forkSeq: null,
    },
  };
  const callers = new Map<string, string>();
  let threadId: string | null = null;
  let previousId: string | null = null;
  let t = 0;
  // Sources with times keep them; a source with none gets a reading pace (and is tagged so).
  const synthetic = !hasSourceTimes(conversation);
  for (const [index, source] of conversation.messages.entries()) {
    if (source.at !== undefined) t = Math.max(t, source.at - conversation.createdAt);
    else if (synthetic && index > 0) t += readingPause(conversation.messages[index - 1]?.content ?? '');
    const message = toMessage(source, index, t, threadId, previousId, callers);
    threadId ??= message.id;
    previousId = message.id;
    const agent = NOT_AGENTS.has(message.from) ? null : message.from;
    const { id: messageId, parentId, from, to, kind } = message;
    yield { t, agent, kind: 'message.started', payload: { messageId, threadId, parentId, from, to, kind } };
    yield { t, agent, kind: 'message.completed', payload: { message } };
    for (const result of message.toolResults ?? []) {
      const { callId, name, content, isError } = result;
      yield { t, agent, kind: 'tool.executed', payload: { callId, name, result: content, isError } };
    }
    for (const call of message.toolCalls ?? []) {
      callers.set(call.id, messageId);
      const payload = { messageId, callId: call.id, name: call.name, arguments: call.arguments };
      yield { t, agent, kind: 'tool.requested', payload };
    }
    if (source.handoffTo !== undefined) {
      yield { t, agent, kind: 'handoff', payload: { from, to: source.handoffTo, messageId } };
    }
  }
  yield {
    t,
    agent: null,
    kind: 'session.stopped',
    payload: { status: 'completed', stopReason: conversation.stopReason },
  };
}

function toMessage(
  source: ForeignMessage,
  index: number,
  t: number,
  threadId: string | null,
  previousId: string | null,
  callers: ReadonlyMap<string, string>,
): Message {
  const id = source.id ?? `m${index + 1}`;
  // A tool result answers the message that asked for it; anything else follows the previous one.
  const firstCall = source.toolResults?.[0]?.callId;
  const parentId = (firstCall !== undefined ? callers.get(firstCall) : undefined) ?? previousId;
  const toolResults = source.toolResults;
  return {
    id,
    threadId: threadId ?? id,
    parentId,
    from: source.from,
    to: source.to,
    kind: source.kind,
    content: source.content,
    meta: source.meta ?? {},
    ...(source.toolCalls?.length ? { toolCalls: source.toolCalls } : {}),
    ...(toolResults?.length ? { toolResults } : {}),
    ...(source.usage ? { usage: source.usage } : {}),
    state: 'complete',
    t,
  };
}
