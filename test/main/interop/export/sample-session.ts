import { fleetSchema, type Fleet, type FleetInput, type RunEvent, type SessionSummary } from '@shared/domain';
import type { ImportedEvent, SessionReader } from '../../../../src-main/history/ports';

export const SAMPLE_FLEET: FleetInput = {
  version: 1,
  name: 'review-team',
  agents: [
    {
      name: 'planner',
      provider: { id: 'openai', model: 'gpt-4o-mini', apiKeyEnv: 'SAMPLE_OPENAI_KEY' },
      tools: ['search'],
    },
    { name: 'coder', provider: { id: 'ollama', model: 'qwen2.5-coder' } },
    { name: 'reviewer', type: 'scripted', script: [{ content: 'LGTM' }] },
  ],
  team: { pattern: 'round-robin', order: ['planner', 'coder', 'reviewer'] },
};

/** The snapshot as the runtime stores it: defaults applied. */
export const SAMPLE_FLEET_PARSED: Fleet = fleetSchema.parse(SAMPLE_FLEET);

const AGENTS = ['planner', 'coder', 'reviewer'] as const;

/**
 * A run as the runtime would log it: every message started/completed (with usage), every 5th
 * asks for a tool that answers, every 50th hands off, one error, then a stop. `content(i)` lets a
 * test plant text in message i.
 */
export function* sampleEvents(
  messageCount: number,
  content: (index: number) => string = defaultContent,
): Generator<ImportedEvent> {
  yield {
    t: 0,
    agent: null,
    kind: 'session.started',
    payload: {
      title: 'Sample run',
      task: 'Review the patch',
      fleetName: 'review-team',
      fleet: SAMPLE_FLEET_PARSED,
      parentSessionId: null,
      forkSeq: null,
    },
  };
  for (let i = 0; i < messageCount; i++) {
    const from = i === 0 ? 'user' : (AGENTS[i % 3] ?? 'planner');
    const agent = from === 'user' ? null : from;
    const to = i === 0 ? 'planner' : (AGENTS[(i + 1) % 3] ?? '*');
    const id = `msg-${i}`;
    const threadId = `thread-${Math.floor(i / 1000)}`;
    const parentId = i % 1000 === 0 ? null : `msg-${i - 1}`;
    const t = i * 10;
    const tool = i % 5 === 4 && agent !== null;
    yield {
      t,
      agent,
      kind: 'message.started',
      payload: { messageId: id, threadId, parentId, from, to, kind: tool ? 'function' : 'text' },
    };
    yield {
      t: t + 5,
      agent,
      kind: 'message.completed',
      payload: {
        message: {
          id,
          threadId,
          parentId,
          from,
          to,
          kind: tool ? 'function' : 'text',
          content: content(i),
          meta: i % 7 === 0 ? { thoughts: 'considering' } : {},
          ...(tool
            ? { toolCalls: [{ id: `call-${i}`, name: 'search', arguments: `{"q":"item ${i}"}` }] }
            : {}),
          ...(agent ? { usage: { prompt: 100 + (i % 10), completion: 20 } } : {}),
          state: 'complete',
          t: t + 5,
        },
      },
    };
    if (tool) {
      yield {
        t: t + 6,
        agent,
        kind: 'tool.requested',
        payload: { messageId: id, callId: `call-${i}`, name: 'search', arguments: `{"q":"item ${i}"}` },
      };
      yield {
        t: t + 8,
        agent,
        kind: 'tool.executed',
        payload: { callId: `call-${i}`, name: 'search', result: `result ${i}`, isError: i % 15 === 14 },
      };
    }
    if (i % 50 === 49 && agent)
      yield { t: t + 9, agent, kind: 'handoff', payload: { from: agent, to: 'reviewer', messageId: id } };
    if (i === Math.floor(messageCount / 2)) {
      yield {
        t: t + 9,
        agent,
        kind: 'error',
        payload: { code: 'provider-timeout', message: 'The model took too long <once>.', messageId: id },
      };
    }
  }
  yield {
    t: messageCount * 10,
    agent: null,
    kind: 'session.stopped',
    payload: { status: 'completed', stopReason: 'max-messages reached' },
  };
}

function defaultContent(index: number): string {
  return `Message ${index}: let's look at **item ${index}** and the \`code\` around it.\nSecond line.`;
}

/** A reader that generates the session on every read: nothing is stored, so memory stays flat. */
export class GeneratedSession implements SessionReader {
  readonly id = 'generated-1';
  private readonly eventCount: number;

  constructor(
    private readonly messageCount: number,
    private readonly content?: (index: number) => string,
  ) {
    let count = 0;
    for (const event of sampleEvents(messageCount, () => '')) if (event) count++;
    this.eventCount = count;
  }

  getSession(id: string): { summary: SessionSummary; fleet: FleetInput | null } | null {
    if (id !== this.id) return null;
    const summary: SessionSummary = {
      id,
      title: 'Sample run',
      task: 'Review the patch',
      fleetName: 'review-team',
      status: 'completed',
      stopReason: 'max-messages reached',
      createdAt: Date.UTC(2025, 5, 1),
      updatedAt: Date.UTC(2025, 5, 1) + this.messageCount * 10,
      endedAt: Date.UTC(2025, 5, 1) + this.messageCount * 10,
      messageCount: this.messageCount,
      tokens: 0,
      parentSessionId: null,
      forkSeq: null,
      tags: [],
      source: 'runtime',
      readOnly: false,
    };
    return { summary, fleet: SAMPLE_FLEET_PARSED };
  }

  *iterateEvents(sessionId: string): Iterable<RunEvent> {
    let seq = 0;
    for (const event of sampleEvents(this.messageCount, this.content)) {
      yield { ...event, sessionId, seq: ++seq } as RunEvent;
    }
  }

  countEvents(): number {
    return this.eventCount;
  }
}
