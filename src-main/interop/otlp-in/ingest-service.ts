import type { RunEvent } from '@shared/domain';
import { silentLogger, type Logger } from '@shared/logger';
import type { ImportInProgress, ImportedEvent, SessionWriter } from '../../history/ports';
import { SessionMapper } from '../span-mapping/session-mapper';
import { SpanIndex, type ResolvedSpan } from '../span-mapping/span-index';
import type { RejectedSpan, SpanBatch } from '../span-mapping/span';
import { maskSecrets, maskText } from './mask-secrets';

export interface IngestOptions {
  /** Where sessions are written (the history store). */
  writer: Pick<SessionWriter, 'beginImport'>;
  /** Called with each session's new events, numbered as the store numbered them. */
  onEvents: (sessionId: string, events: RunEvent[]) => void;
  logger?: Logger;
  /** Values that must never be stored (the app's provider keys): masked in what spans carry. */
  secrets?: () => readonly string[];
  now?: () => number;
  /** How long a span waits for its parent before it is mapped without it (ms). */
  holdMs?: number;
  /** A session with no new span for this long is marked completed (ms). */
  quietMs?: number;
  /**
   * A session of one trace whose root work has ended (a root agent or workflow span arrived;
   * spans arrive when they end) is completed once no span came for this long (ms).
   */
  endQuietMs?: number;
  /** How often held spans and quiet sessions are looked at (ms); 0 turns the timer off. */
  tickMs?: number;
  /** Most spans remembered for their descendants' sake. */
  maxSpans?: number;
}

export interface IngestResult {
  /** Spans taken in (new ones and ones sent again, which are ignored). */
  accepted: number;
  rejected: RejectedSpan[];
}

/** Counters shown beside the receiver's setting. */
export interface IngestStats {
  spansReceived: number;
  spansRejected: number;
  sessionsStarted: number;
  liveSessions: number;
  /** Spans still waiting for a parent. */
  spansWaiting: number;
  /** Spans of traces with no agent, model or tool span in them: not kept as sessions. */
  spansOutsideSessions: number;
}

interface LiveSession {
  id: string;
  writing: ImportInProgress;
  mapper: SessionMapper;
  seq: number;
  lastActivity: number;
  /** A root span enclosing the session's work (an agent or a workflow) has arrived. */
  rootEnded: boolean;
  /**
   * The traces the session's spans came in. A root span ends the work only when the session is
   * one trace: a conversation id spanning traces (a chat's turns) may still get more.
   */
  traces: Set<string>;
}

/** Spans of a conversation with no agent, model or tool span yet wait this long for one (ms). */
const ORPHAN_MS = 10 * 60 * 1000;

/**
 * Live OpenTelemetry ingest: spans go into a SpanIndex, which places each (agent, caller,
 * session) once its ancestors are known or it waited `holdMs`; placed spans are mapped by the
 * session's SessionMapper and appended to a read-only session the store keeps live (owned by
 * this process) until a span says how the run ended (another Fleetscope's root span, with its
 * status and stop reason), or no span arrived for `quietMs`, when it is completed. Every append is
 * passed on as `run.events`, so open views grow as spans arrive. Spans that carry no agent,
 * model or tool meaning start no session of their own; they join one when their conversation
 * gets one, and are counted otherwise.
 */
export class IngestService {
  private readonly index: SpanIndex;
  private readonly sessions = new Map<string, LiveSession>();
  private readonly orphans = new Map<string, { spans: ResolvedSpan[]; since: number }>();
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly quietMs: number;
  private endQuietMs: number;
  private readonly holdMs: number;
  private readonly timer: NodeJS.Timeout | null;
  private closed = false;
  private readonly counts = {
    spansReceived: 0,
    spansRejected: 0,
    sessionsStarted: 0,
    spansOutsideSessions: 0,
  };

  constructor(private readonly options: IngestOptions) {
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.quietMs = options.quietMs ?? 30_000;
    this.endQuietMs = Math.min(options.endQuietMs ?? 3_000, this.quietMs);
    // A little over the 5 s a BatchSpanProcessor waits between exports by default, so an agent
    // span that ends just after its model calls (one export later) still names them, an answer
    // waits that long for the agent that repeats it (its recipient), and an input no one said yet
    // waits that long for another process's export to say it before it is taken as the user's.
    this.holdMs = options.holdMs ?? 6_000;
    this.index = new SpanIndex({
      holdMs: this.holdMs,
      retainMs: Math.max(10 * 60 * 1000, this.quietMs * 2),
      maxSpans: options.maxSpans ?? 200_000,
    });
    const tickMs = options.tickMs ?? 250;
    this.timer = tickMs > 0 ? setInterval(() => this.tick(), tickMs) : null;
    this.timer?.unref?.();
  }

  /**
   * Takes a decoded export request in. What can be placed now is written before this returns;
   * a store failure throws (the receiver answers 503 and the exporter retries; spans already
   * written are recognized by id when they come again).
   */
  receive(batch: SpanBatch): IngestResult {
    if (this.closed) throw new Error('The trace receiver is closed.');
    const now = this.now();
    this.counts.spansReceived += batch.spans.length;
    this.counts.spansRejected += batch.rejected.length;
    this.index.add(batch.spans, now);
    this.place(this.index.drain(now), now);
    return { accepted: batch.spans.length, rejected: batch.rejected };
  }

  /** The quiet period that ends a one-trace session whose root span ended (ms; the Settings value). */
  setEndQuietMs(ms: number): void {
    this.endQuietMs = Math.min(ms, this.quietMs);
  }

  stats(): IngestStats {
    return {
      ...this.counts,
      liveSessions: this.sessions.size,
      spansWaiting: this.index.waiting,
    };
  }

  /** Places every waiting span and completes every live session (shutdown, tests). */
  flush(stopReason = 'The trace receiver stopped.'): void {
    const now = this.now();
    this.place(this.index.drain(now, true), now);
    for (const key of [...this.sessions.keys()]) this.complete(key, stopReason);
  }

  close(): void {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    try {
      this.flush('Fleetscope closed while spans could still arrive.');
    } catch (error) {
      this.logger.error('Closing live trace sessions failed', { err: error });
    }
    this.closed = true;
  }

  /** Held spans whose wait is over, and sessions that went quiet. */
  tick(): void {
    if (this.closed) return;
    const now = this.now();
    try {
      this.place(this.index.drain(now), now);
      for (const [key, session] of this.sessions) {
        const quiet = now - session.lastActivity;
        if (session.rootEnded && session.traces.size === 1 && quiet >= this.endQuietMs) {
          this.complete(
            key,
            `The traced program's root span ended and no spans came for ${seconds(this.endQuietMs)} s.`,
          );
        } else if (quiet >= this.quietMs) {
          this.complete(
            key,
            `No spans arrived for ${seconds(this.quietMs)} s; the trace is taken as finished.`,
          );
        } else if (quiet >= this.holdMs && session.mapper.holding > 0) {
          this.append(key, session, session.mapper.release(), session.lastActivity);
        } else if (session.mapper.inputsWaiting > 0) {
          // Another process's export saying those words would have come by now.
          this.append(key, session, session.mapper.settleInputs(now - this.holdMs), session.lastActivity);
        }
      }
      for (const [key, orphan] of this.orphans) {
        if (now - orphan.since < ORPHAN_MS) continue;
        this.orphans.delete(key);
        this.counts.spansOutsideSessions += orphan.spans.length;
        this.logger.debug('Spans with no agent, model or tool span in their trace were not kept', {
          spans: orphan.spans.length,
        });
      }
    } catch (error) {
      this.logger.error('Writing received spans failed', { err: error });
    }
  }

  private place(groups: Map<string, ResolvedSpan[]>, now: number): void {
    for (const [key, spans] of groups) {
      const session = this.sessions.get(key);
      if (session) {
        session.rootEnded ||= spans.some(enclosesWork);
        for (const span of spans) session.traces.add(span.span.traceId);
        this.append(key, session, session.mapper.map(spans, undefined, false, now), now);
        this.completeIfEnded(key, session);
        continue;
      }
      const orphan = this.orphans.get(key);
      const all = orphan
        ? [...orphan.spans, ...spans].sort((a, b) => a.span.startMs - b.span.startMs)
        : spans;
      if (all.every((span) => span.role === 'other')) {
        if (orphan) orphan.spans.push(...spans);
        else this.orphans.set(key, { spans: [...spans], since: now });
        continue;
      }
      this.orphans.delete(key);
      this.start(key, all, now);
    }
  }

  private start(key: string, spans: ResolvedSpan[], now: number): void {
    const createdAt = Math.min(...spans.map((span) => span.span.startMs));
    const mapper = new SessionMapper(createdAt);
    const events = mapper.map(spans, undefined, false, now);
    const header = mapper.header;
    if (!header) return;
    const secrets = this.options.secrets?.() ?? [];
    const writing = this.options.writer.beginImport({
      title: maskText(header.title, secrets),
      task: maskText(header.task, secrets),
      fleetName: header.fleetName,
      source: 'otlp',
      createdAt: Math.round(createdAt),
      tags: ['trace', 'live'],
    });
    const session: LiveSession = {
      id: writing.sessionId,
      writing,
      mapper,
      seq: 0,
      lastActivity: now,
      rootEnded: spans.some(enclosesWork),
      traces: new Set(spans.map((span) => span.span.traceId)),
    };
    this.sessions.set(key, session);
    this.counts.sessionsStarted++;
    this.logger.info('A traced conversation started a live session', { sessionId: session.id });
    this.append(key, session, events, now);
    this.completeIfEnded(key, session);
  }

  /** A session whose spans said how the run ended (a Fleetscope export's root span) ends now. */
  private completeIfEnded(key: string, session: LiveSession): void {
    const ending = session.mapper.ending;
    if (ending && this.sessions.get(key) === session) this.complete(key, ending.stopReason);
  }

  private append(key: string, session: LiveSession, mapped: ImportedEvent[], now: number): void {
    session.lastActivity = now;
    if (mapped.length === 0) return;
    const events = maskSecrets(mapped, this.options.secrets?.() ?? []);
    try {
      session.writing.append(events);
    } catch (error) {
      // The store's contract: a session whose write failed is aborted (deleted). Spans that
      // come again for this conversation start a new one.
      this.sessions.delete(key);
      session.writing.abort();
      throw error;
    }
    const numbered = events.map(
      (event) => ({ ...event, sessionId: session.id, seq: ++session.seq }) as RunEvent,
    );
    this.options.onEvents(session.id, numbered);
  }

  private complete(key: string, stopReason: string): void {
    const session = this.sessions.get(key);
    if (!session) return;
    this.sessions.delete(key);
    this.index.forgetSession(key);
    const last = maskSecrets(session.mapper.finish(stopReason), this.options.secrets?.() ?? []);
    try {
      session.writing.append(last);
      session.writing.finish();
    } catch (error) {
      session.writing.abort();
      this.logger.error('Completing a live trace session failed', { err: error, sessionId: session.id });
      return;
    }
    this.options.onEvents(
      session.id,
      last.map((event) => ({ ...event, sessionId: session.id, seq: ++session.seq }) as RunEvent),
    );
  }
}

/** A root span around the session's work (an agent run or a workflow), which ends last. */
function enclosesWork(span: ResolvedSpan): boolean {
  return span.span.parentSpanId === null && (span.role === 'agent' || span.role === 'other');
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}
