import type { SessionListItem } from '@shared/contract';
import type { EventBody, Fleet, Message, RunEvent } from '@shared/domain';

/** A fleet of three scripted agents, as a session's snapshot carries it. */
export const threeAgents: Fleet = {
  version: 1,
  name: 'trio',
  description: '',
  agents: ['planner', 'writer', 'critic'].map((name) => ({
    name,
    type: 'scripted' as const,
    description: '',
    role: `${name} role`,
    systemPrompt: '',
    provider: { id: 'scripted', model: 'scripted-1' },
    tools: [],
    acceptedKinds: ['text'],
    receiveOwnBroadcasts: false,
  })),
  team: { pattern: 'round-robin' },
  layout: {},
};

/** Builds a session's event log with consecutive seqs and times 10 ms apart. */
export class EventLog {
  readonly events: RunEvent[] = [];
  constructor(readonly sessionId = 's1') {}

  add(agent: string | null, body: EventBody): RunEvent {
    const seq = this.events.length + 1;
    const event = { sessionId: this.sessionId, seq, t: seq * 10, agent, ...body } as RunEvent;
    this.events.push(event);
    return event;
  }

  start(fleet: Fleet = threeAgents, task = 'Write a haiku'): this {
    this.add(null, {
      kind: 'session.started',
      payload: { title: 'Haiku', task, fleetName: fleet.name, fleet, parentSessionId: null, forkSeq: null },
    });
    return this;
  }

  /** A message streamed in `chunks`, then completed. */
  say(
    id: string,
    from: string,
    to: string,
    chunks: string[],
    options: { parentId?: string | null; threadId?: string; kind?: Message['kind']; tokens?: number } = {},
  ): Message {
    const threadId = options.threadId ?? 'th1';
    const parentId = options.parentId ?? null;
    const kind = options.kind ?? 'text';
    this.add(from, { kind: 'agent.status', payload: { status: 'streaming' } });
    this.add(from, {
      kind: 'message.started',
      payload: { messageId: id, threadId, parentId, from, to, kind },
    });
    for (const text of chunks) this.add(from, { kind: 'message.delta', payload: { messageId: id, text } });
    const message: Message = {
      id,
      threadId,
      parentId,
      from,
      to,
      kind,
      content: chunks.join(''),
      meta: {},
      state: 'complete',
      t: 0,
      ...(options.tokens ? { usage: { prompt: options.tokens, completion: 0 } } : {}),
    };
    this.add(from, { kind: 'message.completed', payload: { message } });
    this.add(from, { kind: 'agent.status', payload: { status: 'idle' } });
    return message;
  }

  stop(status: 'completed' | 'stopped' = 'completed', stopReason = 'max messages'): this {
    this.add(null, { kind: 'session.stopped', payload: { status, stopReason } });
    return this;
  }
}

/** A completed session as the sessions list (and `sessions.get`) describes it. */
export function sessionListItem(id: string, overrides: Partial<SessionListItem> = {}): SessionListItem {
  return {
    id,
    title: id,
    task: 'x',
    fleetName: 'trio',
    status: 'completed',
    stopReason: null,
    createdAt: 0,
    updatedAt: 0,
    endedAt: 0,
    messageCount: 0,
    tokens: 0,
    parentSessionId: null,
    forkSeq: null,
    tags: [],
    source: 'run',
    readOnly: false,
    durationMs: 1,
    ...overrides,
  };
}
