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
  /** Messages written but not completed: start `t` (a message's time is its start), thread, parent. */
  private readonly open = new Map<string, { t: number; threadId: string; parentId: string | null }>();
  private threadId: string | null = null;
  private previousId: string | null = null;
  /** Events waiting behind an input no one was seen saying yet (see `TranscriptState.deferUserInput`). */
  private waiting: Timed[] = [];
  /** The earliest waiting input's time when `waiting` was last sorted out. */
  private waitingFrom = Number.POSITIVE_INFINITY;
  header: MappedHeader | null = null;

  constructor(readonly createdAt: number) {}

  get messageCount(): number {
    return this.state.messageCount;
  }

  /**
   * The events for one batch of spans (the first batch's start with `session.started`). `last`:
   * no spans follow (a file), so answers no one repeated are written here, in time order.
   * `arrivedAt`: when the batch reached the receiver (epoch ms), for `settleInputs`.
   */
  map(spans: readonly ResolvedSpan[], fleetName?: string, last = false, arrivedAt = 0): ImportedEvent[] {
    const timed: Timed[] = [];
    this.state.arrivedAt = arrivedAt;
    // A tool's result is known when it ends: after the work it enclosed (an agent called as a tool).
    const byTurn = [...spans].sort((a, b) => turnMs(a) - turnMs(b));
    for (const span of byTurn) this.mapSpan(span, timed);
    if (last) this.state.releaseHeld(timed);
    else this.state.writeAddressed(timed);
    forgetBatchTexts();
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
    return this.timeline(timed);
  }

  /** Inputs that look like the user's, waiting in case another process's export says them. */
  get inputsWaiting(): number {
    return this.state.inputsWaiting;
  }

  /**
   * The waiting inputs whose batch arrived at or before `arrivedBefore` (epoch ms) are the user's
   * (no export said them in time), and what waited behind them is written (the receiver calls this
   * as time passes).
   */
  settleInputs(arrivedBefore: number): ImportedEvent[] {
    const timed: Timed[] = [];
    this.state.settleUserInputs(timed, arrivedBefore);
    this.state.writeAddressed(timed);
    forgetBatchTexts();
    return this.timeline(timed);
  }

  /**
   * The events that may be written now, in time order: those before the earliest input still
   * waiting for its speaker. The rest wait with it, statuses included, so that when it is settled
   * they are written at their own span times (the log's times never go back: an event written
   * after a later one would take that one's time). At equal times a model's answer comes after the
   * inputs of its call (an input settled later than the answer was mapped).
   */
  private ready(timed: readonly Timed[]): Timed[] {
    const from = this.state.pendingFrom;
    // What waits is at or after the earliest waiting input as it was: looked at again only once
    // that input is settled (so a long wait costs each event one look, not one per batch).
    const again = from > this.waitingFrom;
    const pool = again ? [...this.waiting, ...timed] : timed;
    if (again) this.waiting = [];
    this.waitingFrom = from;
    const now: Timed[] = [];
    for (const item of pool) (item.ms < from ? now : this.waiting).push(item);
    return now.sort((a, b) => a.ms - b.ms || Number(a.answer ?? false) - Number(b.answer ?? false));
  }

  /**
   * Events at their span times, never going back in time; a message's `t` is its start, its
   * parent the message written before it (unless fixed, a tool result's call), its thread the
   * session's first message.
   */
  private timeline(timed: readonly Timed[]): ImportedEvent[] {
    const events: ImportedEvent[] = [];
    for (const { ms, event } of this.ready(timed)) {
      this.lastT = Math.max(this.lastT, ms - this.createdAt);
      const t = this.lastT;
      if (event.kind === 'message.started') {
        const { messageId } = event.payload;
        const threadId = (this.threadId ??= messageId);
        const parentId = this.state.fixedParents.delete(messageId) ? event.payload.parentId : this.previousId;
        this.previousId = messageId;
        this.open.set(messageId, { t, threadId, parentId });
        events.push({ ...event, t, payload: { ...event.payload, threadId, parentId } });
        continue;
      }
      if (event.kind === 'message.completed') {
        const message = event.payload.message;
        const started = this.open.get(message.id);
        this.open.delete(message.id);
        const links = started ?? { t, threadId: message.threadId, parentId: message.parentId };
        events.push({ ...event, t, payload: { message: { ...message, ...links } } });
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
      const task = this.state.firstUserText ?? this.state.pendingTask ?? '';
      return { title: titleFrom(task, sent.name), task, fleetName: sent.name, fleet: sent };
    }
    const agents = [...this.state.agents.values()];
    // The outermost agent span names the team (a workflow's name, or the agent run alone).
    const root = spans.find((span) => span.role === 'agent' && span.caller === USER);
    const rootName = root ? ownAgentName(root.span, 'agent') : null;
    const name = fleetName ?? rootName ?? agents[0]?.name ?? 'OpenTelemetry trace';
    const task = this.state.firstUserText ?? this.state.pendingTask ?? '';
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
    this.state.processes = this.resources.size;
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
