import { USER } from '@shared/domain';
import { agentName } from '../import/build-events';
import {
  classify,
  defaultAgentName,
  fleetscopeAgentId,
  ownAgentName,
  ownSessionKey,
  type SpanRole,
} from './classify';
import type { TraceSpan } from './span';

/** A span with what its ancestors say about it: whose it is and which session it joins. */
export interface ResolvedSpan {
  span: TraceSpan;
  role: SpanRole;
  /** The agent the span belongs to (a valid agent name); null for `other` spans. */
  agent: string | null;
  /** Who the agent answers: the enclosing agent that invoked it, or the user. */
  caller: string;
  sessionKey: string;
  /**
   * Who the agent answers, as the trace says it (OpenInference `graph.node.parent_id` on the span
   * or its nearest ancestor holding one); a hint for who sent its input.
   */
  parentHint?: string | null;
}

interface Entry {
  span: TraceSpan;
  role: SpanRole;
  arrivedAt: number;
  /** Set once the span was handed out; later spans still read it for their ancestry. */
  resolved: ResolvedSpan | null;
}

export interface SpanIndexOptions {
  /**
   * How long a span whose ancestors have not arrived waits for them (ms). Exporters send a
   * parent after its children (it ends last), often in the same batch; when it is later than
   * this, the span is mapped with what is known (the default agent, its trace as the session).
   */
  holdMs: number;
  /** Traces with no new span for this long are forgotten (ms). */
  retainMs: number;
  /** Most spans remembered at once; the traces heard from longest ago go first. */
  maxSpans: number;
}

interface TraceEntries {
  spans: Map<string, Entry>;
  /** Model-call spans by their parent's id (to tell whether an agent span makes calls itself). */
  llmChildren: Map<string, Entry[]>;
  lastArrival: number;
}

const WAIT = Symbol('wait');
type Maybe<T> = T | typeof WAIT;

/**
 * Spans as they arrive, by trace, and the rules that place each one: its agent (its own
 * `gen_ai.agent.name`, else the nearest enclosing agent span, else the service's name), the
 * agent's caller, and its session (its own conversation or session id, else its trace's, else
 * the trace id). A span is handed out once those are known, or when it waited `holdMs`.
 */
export class SpanIndex {
  private readonly traces = new Map<string, TraceEntries>();
  private readonly bindings = new Map<string, string>();
  /**
   * Per session key, each agent's name in the session: `caller/agent` once it was first seen
   * invoked inside another agent's span (a nested team, as Fleetscope names its members), else its
   * own. Kept from the first placement on, so an agent keeps one name in its session.
   */
  private readonly qualified = new Map<string, Map<string, string>>();
  private readonly pending = new Set<Entry>();
  private size = 0;
  private lastPrune = -Infinity;
  /** Spans forgotten before they could be placed (the index was full); reported, never silent. */
  evicted = 0;

  constructor(private readonly options: SpanIndexOptions) {}

  /** Adds spans; returns how many were new (a span sent twice, as retries do, counts once). */
  add(spans: readonly TraceSpan[], now: number): number {
    let added = 0;
    for (const span of spans) {
      let trace = this.traces.get(span.traceId);
      if (!trace) {
        trace = { spans: new Map(), llmChildren: new Map(), lastArrival: now };
        this.traces.set(span.traceId, trace);
      }
      trace.lastArrival = now;
      if (trace.spans.has(span.spanId)) continue;
      const entry: Entry = { span, role: classify(span), arrivedAt: now, resolved: null };
      trace.spans.set(span.spanId, entry);
      if (entry.role === 'llm' && span.parentSpanId !== null) {
        const siblings = trace.llmChildren.get(span.parentSpanId) ?? [];
        siblings.push(entry);
        trace.llmChildren.set(span.parentSpanId, siblings);
      }
      this.pending.add(entry);
      this.size++;
      added++;
    }
    this.prune(now);
    return added;
  }

  /** Spans waiting for their ancestors. */
  get waiting(): number {
    return this.pending.size;
  }

  /**
   * The spans that can be placed now, grouped by session key, each group in start order.
   * `force` places every waiting span with what is known (the end of a file, a shutdown).
   */
  drain(now: number, force = false): Map<string, ResolvedSpan[]> {
    const ready: Entry[] = [];
    // Agents first, over and over until nothing changes: a span's caller depends on whether the
    // enclosing agent has model calls of its own, which may be among the spans placed here.
    const candidates = [...this.pending].sort((a, b) => a.span.startMs - b.span.startMs);
    const agents = new Map<Entry, string | null>();
    for (const entry of candidates) {
      const expired = force || now - entry.arrivedAt >= this.options.holdMs;
      const agent = this.agentOf(entry, expired);
      const key = this.sessionKeyOf(entry, expired);
      if (agent === WAIT || key === WAIT) continue;
      agents.set(entry, agent);
      this.bind(entry.span.traceId, key);
    }
    for (const [entry, agent] of agents) {
      const expired = force || now - entry.arrivedAt >= this.options.holdMs;
      const caller = agent === null ? USER : this.callerOf(entry, agent, expired, agents);
      if (caller === WAIT) continue;
      const key = this.sessionKeyOf(entry, true) as string;
      const names = this.namesIn(key);
      const callerName = caller === USER ? USER : (names.get(caller) ?? caller);
      let name = agent;
      if (agent !== null && !fleetscopeAgentId(entry.span)) {
        name = names.get(agent) ?? (caller === USER ? agent : `${callerName}/${agent}`);
        names.set(agent, name);
      }
      entry.resolved = {
        span: entry.span,
        role: entry.role,
        agent: name,
        caller: callerName,
        sessionKey: key,
        parentHint: this.parentHintOf(entry),
      };
      this.pending.delete(entry);
      ready.push(entry);
    }
    const groups = new Map<string, ResolvedSpan[]>();
    for (const entry of ready) {
      const resolved = entry.resolved as ResolvedSpan;
      const group = groups.get(resolved.sessionKey) ?? [];
      group.push(resolved);
      groups.set(resolved.sessionKey, group);
    }
    for (const group of groups.values()) group.sort((a, b) => a.span.startMs - b.span.startMs);
    return groups;
  }

  private namesIn(sessionKey: string): Map<string, string> {
    let names = this.qualified.get(sessionKey);
    if (!names) {
      names = new Map();
      this.qualified.set(sessionKey, names);
    }
    return names;
  }

  /** Forgets a session's agent names (the receiver calls this when the session has ended). */
  forgetSession(sessionKey: string): void {
    this.qualified.delete(sessionKey);
  }

  private entry(traceId: string, spanId: string | null): Entry | null | undefined {
    if (spanId === null) return null;
    return this.traces.get(traceId)?.spans.get(spanId);
  }

  /** The agent's name: own, else the nearest agent ancestor's, else the default. */
  private agentOf(entry: Entry, expired: boolean): Maybe<string | null> {
    if (entry.role === 'other') return null;
    const id = fleetscopeAgentId(entry.span);
    if (id) return id;
    const own = ownAgentName(entry.span, entry.role);
    if (own) return agentName(own);
    let parent = this.entry(entry.span.traceId, entry.span.parentSpanId);
    while (parent) {
      if (parent.role === 'agent') {
        const name = ownAgentName(parent.span, 'agent');
        if (name) return agentName(name);
      }
      parent = this.entry(parent.span.traceId, parent.span.parentSpanId);
    }
    if (parent === undefined && !expired) return WAIT;
    return agentName(defaultAgentName(entry.span));
  }

  private parentHintOf(entry: Entry): string | null {
    let at: Entry | null | undefined = entry;
    while (at) {
      const hint = at.span.attributes['graph.node.parent_id'];
      if (typeof hint === 'string' && hint.trim() !== '') return hint.trim();
      at = this.entry(at.span.traceId, at.span.parentSpanId);
    }
    return null;
  }

  /**
   * The agent that invoked `agent`: the nearest enclosing agent span of another name that makes
   * model calls of its own (a bare wrapper such as a workflow's root span does not count).
   */
  private callerOf(
    entry: Entry,
    agent: string,
    expired: boolean,
    placing: Map<Entry, string | null>,
  ): Maybe<string> {
    let parent = this.entry(entry.span.traceId, entry.span.parentSpanId);
    while (parent) {
      if (parent.role === 'agent') {
        const name = ownAgentName(parent.span, 'agent');
        const candidate = name ? agentName(name) : null;
        if (candidate && candidate !== agent && this.speaks(parent, candidate, placing)) return candidate;
      }
      parent = this.entry(parent.span.traceId, parent.span.parentSpanId);
    }
    if (parent === undefined && !expired) return WAIT;
    return USER;
  }

  /** True when a model call directly under the agent span belongs to that agent. */
  private speaks(agentEntry: Entry, name: string, placing: Map<Entry, string | null>): boolean {
    const children = this.traces.get(agentEntry.span.traceId)?.llmChildren.get(agentEntry.span.spanId) ?? [];
    for (const child of children) {
      const childAgent = child.resolved?.agent ?? placing.get(child);
      if (childAgent === name) return true;
    }
    return false;
  }

  private sessionKeyOf(entry: Entry, expired: boolean): Maybe<string> {
    const own = ownSessionKey(entry.span);
    if (own) return own;
    const bound = this.bindings.get(entry.span.traceId);
    if (bound) return bound;
    let parent = this.entry(entry.span.traceId, entry.span.parentSpanId);
    while (parent) {
      const key = ownSessionKey(parent.span);
      if (key) return key;
      parent = this.entry(parent.span.traceId, parent.span.parentSpanId);
    }
    if (parent === undefined && !expired) return WAIT;
    return `trace:${entry.span.traceId}`;
  }

  /** A trace joins the first session one of its spans is placed in, and stays there. */
  private bind(traceId: string, key: string): void {
    if (!this.bindings.has(traceId)) this.bindings.set(traceId, key);
  }

  private prune(now: number): void {
    if (this.size <= this.options.maxSpans && now - this.lastPrune < 1000) return;
    this.lastPrune = now;
    const stale = [...this.traces].filter(([, trace]) => now - trace.lastArrival > this.options.retainMs);
    for (const [id] of stale) this.forget(id);
    if (this.size <= this.options.maxSpans) return;
    const oldest = [...this.traces].sort((a, b) => a[1].lastArrival - b[1].lastArrival);
    for (const [id] of oldest) {
      if (this.size <= this.options.maxSpans) break;
      this.forget(id);
    }
  }

  private forget(traceId: string): void {
    const trace = this.traces.get(traceId);
    if (!trace) return;
    for (const entry of trace.spans.values()) if (this.pending.delete(entry)) this.evicted++;
    this.size -= trace.spans.size;
    this.traces.delete(traceId);
    this.bindings.delete(traceId);
  }
}
