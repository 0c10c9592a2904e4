import { randomUUID } from 'node:crypto';
import {
  fleetSchema,
  type EventBody,
  type Fleet,
  type Message,
  type MessageKind,
  type RunEvent,
  type SessionStatus,
} from '../../src-shared/domain';
import { openHistory, type OpenedHistory, type OpenHistoryOptions } from '../../src-main/history';
import { makeTempDir } from './temp-dir';

/** A history store in a fresh temp folder; `cleanup` closes it and removes the folder. */
export function openTempHistory(
  options: OpenHistoryOptions = {},
): OpenedHistory & { dir: string; cleanup(): void } {
  const temp = makeTempDir('fleetscope-history-');
  const opened = openHistory(temp.dir, options);
  return {
    ...opened,
    dir: temp.dir,
    cleanup() {
      try {
        opened.close();
      } catch {
        // Already closed by the test.
      }
      temp.remove();
    },
  };
}

export const demoFleet: Fleet = fleetSchema.parse({
  version: 1,
  name: 'Demo fleet',
  agents: [
    { name: 'alice', type: 'scripted', script: [{ content: 'hi' }] },
    { name: 'bob', type: 'scripted', script: [{ content: 'hello' }] },
  ],
  team: { pattern: 'round-robin' },
});

export interface MessageOptions {
  threadId?: string;
  parentId?: string | null;
  kind?: MessageKind;
  usage?: { prompt: number; completion: number };
  meta?: Record<string, unknown>;
}

/** Builds a session's events with increasing seq and t (10 ms apart unless told). */
export class SessionScript {
  seq = 0;
  t = 0;
  readonly events: RunEvent[] = [];

  constructor(readonly sessionId: string = randomUUID()) {}

  event(body: EventBody, agent: string | null = null, dt = 10): RunEvent {
    this.seq += 1;
    this.t += dt;
    const event = { sessionId: this.sessionId, seq: this.seq, t: this.t, agent, ...body } as RunEvent;
    this.events.push(event);
    return event;
  }

  started(title = 'Demo run', task = 'Say hello', fleet: Fleet = demoFleet): RunEvent {
    return this.event({
      kind: 'session.started',
      payload: { title, task, fleetName: fleet.name, fleet, parentSessionId: null, forkSeq: null },
    });
  }

  messageStarted(id: string, from: string, to: string, options: MessageOptions = {}): RunEvent {
    return this.event(
      {
        kind: 'message.started',
        payload: {
          messageId: id,
          threadId: options.threadId ?? 'main',
          parentId: options.parentId ?? null,
          from,
          to,
          kind: options.kind ?? 'text',
        },
      },
      from,
    );
  }

  delta(id: string, text: string, from: string | null = null): RunEvent {
    return this.event({ kind: 'message.delta', payload: { messageId: id, text } }, from, 1);
  }

  completed(id: string, from: string, to: string, content: string, options: MessageOptions = {}): RunEvent {
    const message: Message = {
      id,
      threadId: options.threadId ?? 'main',
      parentId: options.parentId ?? null,
      from,
      to,
      kind: options.kind ?? 'text',
      content,
      meta: options.meta ?? {},
      state: 'complete',
      t: this.t,
    };
    if (options.usage) message.usage = options.usage;
    return this.event({ kind: 'message.completed', payload: { message } }, from);
  }

  /** A whole streamed message: started, one delta per chunk, completed. */
  message(id: string, from: string, to: string, chunks: string[], options: MessageOptions = {}): RunEvent[] {
    return [
      this.messageStarted(id, from, to, options),
      ...chunks.map((chunk) => this.delta(id, chunk, from)),
      this.completed(id, from, to, chunks.join(''), options),
    ];
  }

  stopped(status: SessionStatus = 'completed', stopReason = 'Task done'): RunEvent {
    return this.event({ kind: 'session.stopped', payload: { status, stopReason } });
  }
}
