import { USER, fleetSchema, type Fleet } from '@shared/domain';
import type { ImportedEvent } from '../../history/ports';
import { titleFrom } from '../import/validate';
import { AttributeReader } from './attribute-reader';
import { CLASSIFYING_KEYS, SESSION_KEY_ATTRIBUTES, ownAgentName } from './classify';
import type { SessionEnding } from './fleetscope-attributes';
import { inferredAgents } from './inferred-fleet';
import { mapModelCall } from './map-model-call';
import { mapAgent, mapHandoff, mapSpanEvents, mapTool } from './map-other-spans';
import type { ResolvedSpan } from './span-index';
import type { SpanEvent } from './span';
import { forgetBatchTexts } from './said-index';
import { HANDLED_EVENTS, jsonSafe } from './span-values';
import { TranscriptState, type Timed } from './transcript-state';

/** What the session row needs before its first event is written. */
export interface MappedHeader {
  title: string;
  task: string;
  fleetName: string;
  fleet: Fleet;
}

/**
 * Turns the spans of one session, placed by SpanIndex, into the event log a run of our own would
 * have written. Spans may come in several batches (live) or all at once (a file); each batch is
 * mapped in start order and its events sorted by time, so replay plays at the traced pace. Times
 * never go backwards across batches (a late span is put at the current end).
 *
 * Per span:
 * - a model call (agent A, caller C): new system instructions and inputs first (a user turn is
 *   C speaking to A; earlier assistant turns and tool results not seen before are A's), then
 *   A's answer from the span's start to its end, addressed to C (to A itself when it calls
 *   tools), with usage; each tool call a `tool.requested`;
 * - a tool execution: the result as A's tool message and `tool.executed`, paired with the call
 *   by id (or by name, for instrumentations that record no id);
 * - an agent invocation: its input and output when they add to what its model calls said;
 * - a handoff span and `fleetscope.handoff` events: a handoff; `exception` events: errors.
 * Anything left over (other spans, unused attributes and events, the resource) becomes a
 * `span.unmapped` event: kept in the log and counted in the session's header.
 */
export class SessionMapper {
  private lastT = 0;
  private started = false;
  private readonly state = new TranscriptState();
  private readonly resources = new Set<string>();
  /** When each message started, for its `t` (a message's time is its start). */
  private readonly startedAt = new Map<string, number>();
  header: MappedHeader | null = null;

  constructor(readonly createdAt: number) {}

  get messageCount(): number {
    return this.state.messageCount;
  }

  /**
   * The events for one batch of spans (the first batch's start with `session.started`). `last`:
   * no spans follow (a file), so answers no one repeated are written here, in time order.
   */
  map(spans: readonly ResolvedSpan[], fleetName?: string, last = false): ImportedEvent[] {
    const timed: Timed[] = [];
    // A tool's result is known when it ends: after the work it enclosed (an agent called as a tool).
    const byTurn = [...spans].sort((a, b) => turnMs(a) - turnMs(b));
    for (const span of byTurn) this.mapSpan(span, timed);
    if (last) this.state.releaseHeld(timed);
    else this.state.writeAddressed(timed);
    forgetBatchTexts();
    timed.sort((a, b) => a.ms - b.ms);
    const events: ImportedEvent[] = [];
    if (!this.started) {
      this.header = this.makeHeader(spans, fleetName);
      this.started = true;
      events.push({
        t: 0,
        agent: null,
        kind: 'session.started',
        payload: {
          title: this.header.title,
          task: this.header.task,
          fleetName: this.header.fleetName,
          fleet: this.header.fleet,
          parentSessionId: null,
          forkSeq: null,
        },
      });
    }
    events.push(...this.timeline(timed));
    return events;
  }

  /** Answers still waiting for a recipient (see `release`). */
  get holding(): number {
    return this.state.holding;
  }

  /**
   * Writes the answers no one was seen repeating, to the one their agent answers (the live
   * receiver calls this once no span came for a while; `finish` does it last).
   */
  release(): ImportedEvent[] {
    const timed: Timed[] = [];
    this.state.releaseHeld(timed);
    forgetBatchTexts();
    timed.sort((a, b) => a.ms - b.ms);
    return this.timeline(timed);
  }

  /** Events at their span times, never going back in time; a message's `t` is its start. */
  private timeline(timed: readonly Timed[]): ImportedEvent[] {
    const events: ImportedEvent[] = [];
    for (const { ms, event } of timed) {
      this.lastT = Math.max(this.lastT, ms - this.createdAt);
      const t = this.lastT;
      if (event.kind === 'message.started') this.startedAt.set(event.payload.messageId, t);
      if (event.kind === 'message.completed') {
        const message = event.payload.message;
        const startedAt = this.startedAt.get(message.id) ?? t;
        this.startedAt.delete(message.id);
        events.push({ ...event, t, payload: { message: { ...message, t: startedAt } } });
        continue;
      }
      events.push({ ...event, t } as ImportedEvent);
    }
    return events;
  }

  /** How the traced run ended, once a span said so (a Fleetscope export's root span). */
  get ending(): SessionEnding | null {
    return this.state.ending;
  }

  /**
   * The held answers, then the closing event: as the traced run ended when a span said how; otherwise completed, or
   * failed when the outermost agent span reported an error, with `stopReason`.
   */
  finish(stopReason: string): ImportedEvent[] {
    const ending = this.state.ending;
    const events = this.release();
    events.push({
      t: this.lastT,
      agent: null,
      kind: 'session.stopped',
      payload: ending ?? { status: this.state.failed ? 'failed' : 'completed', stopReason },
    });
    return events;
  }

  private makeHeader(spans: readonly ResolvedSpan[], fleetName?: string): MappedHeader {
    const sent = this.state.fleet;
    if (sent) {
      const task = this.state.firstUserText ?? '';
      return { title: titleFrom(task, sent.name), task, fleetName: sent.name, fleet: sent };
    }
    const agents = [...this.state.agents.values()];
    // The outermost agent span names the team (a workflow's name, or the agent run alone).
    const root = spans.find((span) => span.role === 'agent' && span.caller === USER);
    const rootName = root ? ownAgentName(root.span, 'agent') : null;
    const name = fleetName ?? rootName ?? agents[0]?.name ?? 'OpenTelemetry trace';
    const task = this.state.firstUserText ?? '';
    const members = inferredAgents(
      agents.length > 0 ? agents : [{ name: 'assistant', model: null, provider: null, description: '' }],
    );
    const fleet = fleetSchema.parse({
      version: 1,
      name,
      description: 'Agents seen in an OpenTelemetry trace.',
      agents: members,
      team: { pattern: 'sequential', order: members.map((agent) => agent.name) },
    });
    return { title: titleFrom(task, name), task, fleetName: name, fleet };
  }

  private mapSpan(resolved: ResolvedSpan, out: Timed[]): void {
    const { span, role } = resolved;
    const reader = new AttributeReader(span.attributes);
    reader.use(...CLASSIFYING_KEYS, ...SESSION_KEY_ATTRIBUTES);
    const usedEvents = new Set<SpanEvent>();
    this.keepResource(resolved, out);
    switch (role) {
      case 'llm':
        mapModelCall(this.state, resolved, reader, usedEvents, out);
        break;
      case 'tool':
        mapTool(this.state, resolved, reader, out);
        break;
      case 'agent':
        mapAgent(this.state, resolved, reader, usedEvents, out);
        break;
      case 'handoff':
        mapHandoff(this.state, resolved, reader, out);
        break;
      case 'other':
        break;
    }
    mapSpanEvents(this.state, resolved, usedEvents, out);
    const leftover = role === 'other' ? span.attributes : reader.leftover();
    const events = span.events
      .filter((event) => !usedEvents.has(event) && !HANDLED_EVENTS.has(event.name))
      .map((event) => ({ name: event.name, attributes: jsonSafe(event.attributes) }));
    if (role === 'other' || Object.keys(leftover).length > 0 || events.length > 0) {
      out.push({
        ms: span.startMs,
        event: {
          t: 0,
          agent: resolved.agent,
          kind: 'span.unmapped',
          payload: {
            spanId: span.spanId,
            name: span.name,
            partly: role !== 'other',
            attributes: jsonSafe(leftover),
            events,
          },
        },
      });
    }
  }

  /** The resource's attributes, once per distinct resource in the session. */
  private keepResource(resolved: ResolvedSpan, out: Timed[]): void {
    const resource = resolved.span.resource;
    if (Object.keys(resource).length === 0) return;
    const key = JSON.stringify(resource);
    if (this.resources.has(key)) return;
    this.resources.add(key);
    out.push({
      ms: resolved.span.startMs,
      event: {
        t: 0,
        agent: null,
        kind: 'span.unmapped',
        payload: { spanId: '', name: 'resource', partly: true, attributes: jsonSafe(resource), events: [] },
      },
    });
  }
}

/** When a span's part of the conversation happens: a tool's at its end, anything else's at its start. */
function turnMs(resolved: ResolvedSpan): number {
  return resolved.role === 'tool' ? resolved.span.endMs : resolved.span.startMs;
}
