import type { EventBody, FleetInput, RunEvent, SessionSummary } from '@shared/domain';
import type {
  ImportedEvent,
  ImportedSessionMeta,
  ImportInProgress,
  SessionReader,
  SessionWriter,
} from '../../src-main/history/ports';

interface StoredSession {
  summary: SessionSummary;
  fleet: FleetInput | null;
  events: RunEvent[];
}

/**
 * An in-memory stand-in for the history store's import/export ports. Like the real store,
 * `importSession` is all-or-nothing: if the event iterable throws, nothing is kept. The summary is
 * folded from the events the way the store does it (title/task from meta, status and stop reason
 * from session.stopped, message count and tokens from message.completed).
 */
export class MemorySessions implements SessionReader, SessionWriter {
  readonly sessions = new Map<string, StoredSession>();
  private next = 1;

  importSession(meta: ImportedSessionMeta, events: Iterable<ImportedEvent>): string {
    const id = `session-${this.next++}`;
    const stored: RunEvent[] = [];
    for (const event of events) stored.push({ ...event, sessionId: id, seq: stored.length + 1 } as RunEvent);
    this.sessions.set(id, { ...fold(id, meta, stored), events: stored });
    return id;
  }

  /** Batches are buffered and the session appears only on finish (the store writes as it goes). */
  beginImport(meta: ImportedSessionMeta): ImportInProgress {
    const id = `session-${this.next++}`;
    const stored: RunEvent[] = [];
    return {
      sessionId: id,
      append: (events) => {
        for (const event of events)
          stored.push({ ...event, sessionId: id, seq: stored.length + 1 } as RunEvent);
      },
      finish: () => {
        this.sessions.set(id, { ...fold(id, meta, stored), events: stored });
        return id;
      },
      abort: () => {
        stored.length = 0;
      },
    };
  }

  /** Adds a session as the runtime would have written it (for export tests). */
  addSession(
    meta: Partial<ImportedSessionMeta>,
    events: ReadonlyArray<{ t: number; agent: string | null } & EventBody>,
  ): string {
    const full: ImportedSessionMeta = {
      title: 'Test session',
      task: 'Test task',
      fleetName: 'test-fleet',
      source: 'runtime',
      createdAt: Date.UTC(2025, 0, 2, 3, 4, 5),
      tags: [],
      ...meta,
    };
    const id = this.importSession(full, events);
    const session = this.sessions.get(id);
    if (session)
      session.summary = {
        ...session.summary,
        source: full.source,
        readOnly: full.source !== 'runtime' ? true : false,
      };
    return id;
  }

  getSession(id: string): { summary: SessionSummary; fleet: FleetInput | null } | null {
    const session = this.sessions.get(id);
    return session ? { summary: session.summary, fleet: session.fleet } : null;
  }

  *iterateEvents(sessionId: string): Iterable<RunEvent> {
    yield* this.sessions.get(sessionId)?.events ?? [];
  }

  countEvents(sessionId: string): number {
    return this.sessions.get(sessionId)?.events.length ?? 0;
  }
}

function fold(id: string, meta: ImportedSessionMeta, events: RunEvent[]): Omit<StoredSession, 'events'> {
  let fleet: FleetInput | null = null;
  let status: SessionSummary['status'] = 'running';
  let stopReason: string | null = null;
  let parentSessionId: string | null = null;
  let forkSeq: number | null = null;
  let messageCount = 0;
  let tokens = 0;
  let lastT = 0;
  for (const event of events) {
    lastT = Math.max(lastT, event.t);
    if (event.kind === 'session.started') {
      fleet = event.payload.fleet;
      parentSessionId = event.payload.parentSessionId;
      forkSeq = event.payload.forkSeq;
    } else if (event.kind === 'session.stopped') {
      status = event.payload.status;
      stopReason = event.payload.stopReason;
    } else if (event.kind === 'session.status') {
      status = event.payload.status;
    } else if (event.kind === 'message.completed') {
      messageCount++;
      const usage = event.payload.message.usage;
      if (usage) tokens += usage.prompt + usage.completion;
    }
  }
  const summary: SessionSummary = {
    id,
    title: meta.title,
    task: meta.task,
    fleetName: meta.fleetName,
    status,
    stopReason,
    createdAt: meta.createdAt,
    updatedAt: meta.createdAt + lastT,
    endedAt: status === 'running' ? null : meta.createdAt + lastT,
    messageCount,
    tokens,
    parentSessionId,
    forkSeq,
    tags: meta.tags,
    source: meta.source,
    readOnly: true,
  };
  return { summary, fleet };
}
