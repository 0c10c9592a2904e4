import {
  BROADCAST,
  MESSAGE_KINDS,
  USER,
  fleetSchema,
  type Fleet,
  type Message,
  type MessageKind,
  type TokenUsage,
  type ToolCall,
} from '@shared/domain';
import type { ImportedEvent } from '../../ports';
import { agentName } from '../build-events';
import { titleFrom } from '../validate';
import { AttributeReader, stringify } from './attribute-reader';
import {
  readInputMessages,
  readOutputMessages,
  readSystemInstructions,
  type ChatMessage,
} from './chat-messages';
import { CLASSIFYING_KEYS, SESSION_KEY_ATTRIBUTES, ownAgentName } from './classify';
import type { ResolvedSpan } from './span-index';
import type { Attributes, SpanEvent } from './span';

const AGENT_KEYS = [
  'gen_ai.agent.name',
  'agent.name',
  'graph.node.name',
  'graph.node.id',
  'traceloop.entity.name',
];
const MODEL_KEYS = ['gen_ai.request.model', 'gen_ai.response.model', 'llm.model_name'];
const PROVIDER_KEYS = ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system'];
const MESSAGE_KINDS_SET: ReadonlySet<string> = new Set(MESSAGE_KINDS);
/** Events of a span that map to something of their own (the message events are read with it). */
const HANDLED_EVENTS = new Set(['exception', 'fleetscope.handoff']);

interface Timed {
  ms: number;
  event: ImportedEvent;
}

interface AgentInfo {
  name: string;
  model: string | null;
  provider: string | null;
  description: string;
}

interface PendingCall {
  agent: string;
  name: string;
  messageId: string;
}

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
  private readonly agents = new Map<string, AgentInfo>();
  /** Agents described by their invocation spans, before (or without) doing anything. */
  private readonly declared = new Map<string, AgentInfo>();
  /** Per agent, the inputs and outputs already in the transcript (by role and text). */
  private readonly seen = new Map<string, Set<string>>();
  private readonly pendingCalls = new Map<string, PendingCall>();
  private readonly answeredCalls = new Set<string>();
  private readonly resources = new Set<string>();
  private threadId: string | null = null;
  private previousId: string | null = null;
  private lastOutput = new Map<string, string>();
  private failed = false;
  private firstUserText: string | null = null;
  /** When each message started, for its `t` (a message's time is its start). */
  private readonly startedAt = new Map<string, number>();
  messageCount = 0;
  header: MappedHeader | null = null;

  constructor(readonly createdAt: number) {}

  /** The events for one batch of spans (the first batch's start with `session.started`). */
  map(spans: readonly ResolvedSpan[], fleetName?: string): ImportedEvent[] {
    const timed: Timed[] = [];
    for (const span of spans) this.mapSpan(span, timed);
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

  /** The closing event: completed, or failed when the outermost agent span reported an error. */
  finish(stopReason: string): ImportedEvent {
    return {
      t: this.lastT,
      agent: null,
      kind: 'session.stopped',
      payload: { status: this.failed ? 'failed' : 'completed', stopReason },
    };
  }

  private makeHeader(spans: readonly ResolvedSpan[], fleetName?: string): MappedHeader {
    const agents = [...this.agents.values()];
    // The outermost agent span names the team (a workflow's name, or the agent run alone).
    const root = spans.find((span) => span.role === 'agent' && span.caller === USER);
    const rootName = root ? ownAgentName(root.span, 'agent') : null;
    const name = fleetName ?? rootName ?? agents[0]?.name ?? 'OpenTelemetry trace';
    const task = this.firstUserText ?? '';
    const fleet = fleetSchema.parse({
      version: 1,
      name,
      description: 'Agents seen in an OpenTelemetry trace.',
      agents: (agents.length > 0
        ? agents
        : [{ name: 'assistant', model: null, provider: null, description: '' }]
      ).map((agent) => ({
        name: agent.name,
        type: 'llm',
        description: agent.description,
        ...(agent.model ? { provider: { id: agent.provider ?? 'custom', model: agent.model } } : {}),
      })),
      team: { pattern: 'sequential', order: agents.map((agent) => agent.name) },
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
        this.mapModelCall(resolved, reader, usedEvents, out);
        break;
      case 'tool':
        this.mapTool(resolved, reader, out);
        break;
      case 'agent':
        this.mapAgent(resolved, reader, usedEvents, out);
        break;
      case 'handoff':
        this.mapHandoff(resolved, reader, out);
        break;
      case 'other':
        break;
    }
    this.mapSpanEvents(resolved, usedEvents, out);
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

  private agentInfo(name: string): AgentInfo {
    let info = this.agents.get(name);
    if (!info) {
      info = { ...(this.declared.get(name) ?? { name, model: null, provider: null, description: '' }) };
      this.agents.set(name, info);
    }
    return info;
  }

  private isNew(agent: string, key: string): boolean {
    let set = this.seen.get(agent);
    if (!set) {
      set = new Set();
      this.seen.set(agent, set);
    }
    if (set.has(key)) return false;
    set.add(key);
    return true;
  }

  private mapModelCall(
    resolved: ResolvedSpan,
    reader: AttributeReader,
    used: Set<SpanEvent>,
    out: Timed[],
  ): void {
    const { span, caller } = resolved;
    const agent = resolved.agent ?? 'assistant';
    reader.use(...AGENT_KEYS);
    const info = this.agentInfo(agent);
    const model = reader.text(...MODEL_KEYS);
    for (const key of MODEL_KEYS) reader.use(key);
    const provider = reader.text(...PROVIDER_KEYS);
    for (const key of PROVIDER_KEYS) reader.use(key);
    info.model ??= model ?? null;
    info.provider ??= provider ?? null;
    const system = readSystemInstructions(reader);
    const inputs = readInputMessages(reader, span.events, used);
    const outputs = readOutputMessages(reader, span.events, used);
    const usage = readUsage(reader);
    const explicitTo = reader.text('fleetscope.message.to');
    const explicitKind = reader.text('fleetscope.message.kind');
    const sourceId = reader.text('fleetscope.message.id');
    reader.use('fleetscope.thread.id');
    const at = span.startMs;
    if (system && this.isNew(agent, `system:${system}`))
      this.say(out, at, 'system', agent, 'system', system, {}, span.spanId, 'sys');
    inputs.forEach((input, index) => this.mapInput(resolved, agent, caller, input, index, out));
    const answers = outputs.filter((message) => message.text !== '' || message.toolCalls.length > 0);
    if (answers.length === 0 && span.status.code === 2) {
      this.failIn(out, span.endMs, agent, span.status.message || `The model call "${span.name}" failed.`);
      return;
    }
    answers.forEach((answer, index) => {
      const calls = this.toolCalls(answer, span.spanId, index);
      const kind: MessageKind =
        explicitKind && MESSAGE_KINDS_SET.has(explicitKind)
          ? (explicitKind as MessageKind)
          : calls.length > 0
            ? 'function'
            : 'text';
      const to = explicitTo ? participant(explicitTo) : calls.length > 0 ? agent : caller;
      const meta: Record<string, unknown> = { otel: { traceId: span.traceId, spanId: span.spanId } };
      if (model) meta.model = model;
      if (answer.reasoning) meta.reasoning = answer.reasoning;
      if (answer.finishReason) meta.finishReason = answer.finishReason;
      if (sourceId) meta.sourceMessageId = sourceId;
      const messageId = `${span.spanId}.out${index}`;
      this.isNew(agent, `assistant:${answer.text}:${calls.map((call) => call.id).join(',')}`);
      this.lastOutput.set(agent, answer.text);
      out.push({
        ms: span.startMs,
        event: { t: 0, agent, kind: 'agent.status', payload: { status: 'thinking' } },
      });
      this.message(out, span.startMs, span.endMs, {
        id: messageId,
        from: agent,
        to,
        kind,
        content: answer.text,
        meta,
        toolCalls: calls,
        usage: index === 0 ? usage : undefined,
      });
      for (const call of calls) {
        this.pendingCalls.set(call.id, { agent, name: call.name, messageId });
        out.push({
          ms: span.endMs,
          event: {
            t: 0,
            agent,
            kind: 'tool.requested',
            payload: { messageId, callId: call.id, name: call.name, arguments: call.arguments },
          },
        });
      }
      out.push({
        ms: span.endMs,
        event: {
          t: 0,
          agent,
          kind: 'agent.status',
          payload: { status: calls.length > 0 ? 'thinking' : 'idle' },
        },
      });
    });
  }

  /** One message of what a model was sent, added to the transcript when it is new. */
  private mapInput(
    resolved: ResolvedSpan,
    agent: string,
    caller: string,
    input: ChatMessage,
    index: number,
    out: Timed[],
  ): void {
    const { span } = resolved;
    const at = span.startMs;
    const suffix = `in${index}`;
    switch (input.role) {
      case 'system':
      case 'developer':
        if (input.text && this.isNew(agent, `system:${input.text}`)) {
          this.say(out, at, 'system', agent, 'system', input.text, {}, span.spanId, suffix);
        }
        return;
      case 'user':
      case 'human':
        if (input.text && this.isNew(agent, `user:${input.text}`)) {
          this.firstUserText ??= input.text;
          const from = caller === USER && input.name ? participant(input.name) : caller;
          this.say(out, at, from, agent, 'text', input.text, {}, span.spanId, suffix);
        }
        return;
      case 'tool':
      case 'function':
      case 'ipython': {
        const callId = input.toolCallId ?? this.callIdByName(agent, input.name);
        if (!callId || this.answeredCalls.has(callId)) return;
        const pending = this.pendingCalls.get(callId);
        this.result(out, at, at, agent, span.spanId, suffix, {
          callId,
          name: pending?.name ?? input.name ?? 'tool',
          content: input.text,
          isError: false,
        });
        return;
      }
      default: {
        // An assistant turn the transcript does not have yet (made before tracing began, or by
        // a call whose span never arrived).
        const calls = input.toolCalls.map((call, i) => ({
          id: call.id ?? `${span.spanId}.${suffix}.call${i}`,
          name: call.name,
          arguments: call.arguments,
        }));
        const key = `assistant:${input.text}:${calls.map((call) => call.id).join(',')}`;
        const known =
          (this.seen.get(agent)?.has(key) ?? false) ||
          (calls.length > 0 &&
            calls.every((call) => this.pendingCalls.has(call.id) || this.answeredCalls.has(call.id)));
        if (known || (!input.text && calls.length === 0)) return;
        if (calls.length === 0 && this.seenText(agent, input.text)) return;
        this.isNew(agent, key);
        const messageId = `${span.spanId}.${suffix}`;
        const from =
          input.role === 'assistant' || input.role === 'model'
            ? agent
            : participant(input.name ?? input.role);
        this.message(out, at, at, {
          id: messageId,
          from,
          to: calls.length > 0 ? from : caller,
          kind: calls.length > 0 ? 'function' : 'text',
          content: input.text,
          meta: { otel: { traceId: span.traceId, spanId: span.spanId }, fromInput: true },
          toolCalls: calls,
        });
        for (const call of calls) {
          if (this.pendingCalls.has(call.id) || this.answeredCalls.has(call.id)) continue;
          this.pendingCalls.set(call.id, { agent: from, name: call.name, messageId });
          out.push({
            ms: at,
            event: {
              t: 0,
              agent: from,
              kind: 'tool.requested',
              payload: { messageId, callId: call.id, name: call.name, arguments: call.arguments },
            },
          });
        }
      }
    }
  }

  /** True when the agent already said exactly this text (an answer later repeated as input). */
  private seenText(agent: string, text: string): boolean {
    for (const key of this.seen.get(agent) ?? []) {
      if (key.startsWith(`assistant:${text}:`)) return true;
    }
    return false;
  }

  private mapTool(resolved: ResolvedSpan, reader: AttributeReader, out: Timed[]): void {
    const { span } = resolved;
    reader.use(...AGENT_KEYS);
    const name =
      reader.text('gen_ai.tool.name', 'tool.name') ?? (span.name.replace(/^execute_tool\s*/, '') || 'tool');
    reader.use('tool.name');
    let callId = reader.text('gen_ai.tool.call.id', 'tool_call.id');
    const args =
      reader.text(
        'gen_ai.tool.call.arguments',
        'gen_ai.tool.args',
        'input.value',
        'traceloop.entity.input',
      ) ?? '';
    const result =
      reader.text('gen_ai.tool.call.result', 'gen_ai.output', 'output.value', 'traceloop.entity.output') ??
      '';
    reader.use(
      'input.mime_type',
      'output.mime_type',
      'gen_ai.output.type',
      'gen_ai.tool.type',
      'gen_ai.tool.description',
      'tool.description',
      'llm.system',
      'gen_ai.system',
      'gen_ai.provider.name',
    );
    let agent = resolved.agent ?? 'assistant';
    let pending = callId ? this.pendingCalls.get(callId) : undefined;
    if (!pending) {
      const byName = this.callIdByName(agent, name) ?? this.callIdByName(null, name);
      if (byName && !callId) {
        callId = byName;
        pending = this.pendingCalls.get(byName);
      }
    }
    if (pending) agent = pending.agent;
    this.agentInfo(agent);
    const id = callId ?? `${span.spanId}.call`;
    if (this.answeredCalls.has(id)) return;
    if (!pending) {
      // A tool run without a model asking for it (or whose request was not traced).
      const messageId = `${span.spanId}.call`;
      this.message(out, span.startMs, span.startMs, {
        id: messageId,
        from: agent,
        to: agent,
        kind: 'function',
        content: '',
        meta: { otel: { traceId: span.traceId, spanId: span.spanId } },
        toolCalls: [{ id, name, arguments: args }],
      });
      this.pendingCalls.set(id, { agent, name, messageId });
      out.push({
        ms: span.startMs,
        event: {
          t: 0,
          agent,
          kind: 'tool.requested',
          payload: { messageId, callId: id, name, arguments: args },
        },
      });
    }
    const isError = span.status.code === 2;
    this.result(out, span.startMs, span.endMs, agent, span.spanId, 'result', {
      callId: id,
      name,
      content: result || (isError ? span.status.message : ''),
      isError,
    });
  }

  private mapAgent(
    resolved: ResolvedSpan,
    reader: AttributeReader,
    used: Set<SpanEvent>,
    out: Timed[],
  ): void {
    const { span, caller } = resolved;
    const agent = resolved.agent ?? 'assistant';
    reader.use(...AGENT_KEYS, 'gen_ai.agent.id', 'gen_ai.agent.version');
    // What the span says about the agent; it becomes a node only once it says or does something.
    const info = this.declared.get(agent) ?? { name: agent, model: null, provider: null, description: '' };
    this.declared.set(agent, info);
    const description = reader.text('gen_ai.agent.description');
    if (description && description !== 'No description.') info.description ||= description;
    const model = reader.text(...MODEL_KEYS);
    for (const key of MODEL_KEYS) reader.use(key);
    info.model ??= model ?? null;
    const provider = reader.text(...PROVIDER_KEYS);
    for (const key of PROVIDER_KEYS) reader.use(key);
    info.provider ??= provider ?? null;
    const known = this.agents.get(agent);
    if (known) {
      known.description ||= info.description;
      known.model ??= info.model;
      known.provider ??= info.provider;
    }
    const system = readSystemInstructions(reader);
    if (system && this.isNew(agent, `system:${system}`))
      this.say(out, span.startMs, 'system', agent, 'system', system, {}, span.spanId, 'sys');
    const hasInput =
      reader.has('gen_ai.input.messages') ||
      reader.has('input.value') ||
      reader.has('traceloop.entity.input');
    const inputs = hasInput ? readInputMessages(reader, [], used) : [];
    const entityInput = reader.text('traceloop.entity.input');
    if (entityInput) inputs.push({ role: 'user', text: entityInput, toolCalls: [] });
    inputs.forEach((input, index) => {
      if (input.role === 'assistant' || input.role === 'tool') return;
      this.mapInput(
        resolved,
        agent,
        caller,
        { ...input, role: input.role === 'system' ? 'system' : 'user' },
        index,
        out,
      );
    });
    const hasOutput =
      reader.has('gen_ai.output.messages') ||
      reader.has('output.value') ||
      reader.has('traceloop.entity.output');
    const outputs = hasOutput ? readOutputMessages(reader, [], used) : [];
    const entityOutput = reader.text('traceloop.entity.output');
    if (entityOutput) outputs.push({ role: 'assistant', text: entityOutput, toolCalls: [] });
    outputs.forEach((output, index) => {
      if (!output.text || this.seenText(agent, output.text) || this.lastOutput.get(agent) === output.text)
        return;
      this.isNew(agent, `assistant:${output.text}:`);
      this.message(out, span.endMs, span.endMs, {
        id: `${span.spanId}.out${index}`,
        from: agent,
        to: caller,
        kind: 'text',
        content: output.text,
        meta: { otel: { traceId: span.traceId, spanId: span.spanId } },
        toolCalls: [],
      });
    });
    if (span.status.code === 2) {
      if (caller === USER) this.failed = true;
      this.failIn(out, span.endMs, agent, span.status.message || `The agent "${agent}" failed.`);
    }
  }

  private mapHandoff(resolved: ResolvedSpan, reader: AttributeReader, out: Timed[]): void {
    const { span } = resolved;
    const from = resolved.agent ?? 'assistant';
    const target = /^handoff to (.+)$/i.exec(span.name)?.[1]?.trim();
    reader.use('llm.system', 'tool.name');
    if (!target) return;
    out.push({
      ms: span.startMs,
      event: {
        t: 0,
        agent: from,
        kind: 'handoff',
        payload: { from, to: agentName(target), messageId: null },
      },
    });
  }

  /** `exception` events become errors; Fleetscope's own `fleetscope.handoff` events handoffs. */
  private mapSpanEvents(resolved: ResolvedSpan, used: Set<SpanEvent>, out: Timed[]): void {
    for (const event of resolved.span.events) {
      if (event.name === 'exception') {
        used.add(event);
        const type = stringify(event.attributes['exception.type'] ?? 'exception');
        const message = stringify(event.attributes['exception.message'] ?? '');
        out.push({
          ms: event.timeMs,
          event: {
            t: 0,
            agent: resolved.agent,
            kind: 'error',
            payload: { code: type.slice(0, 200), message: message || type },
          },
        });
      } else if (event.name === 'fleetscope.handoff') {
        used.add(event);
        const from = stringify(event.attributes['fleetscope.handoff.from'] ?? '');
        const to = stringify(event.attributes['fleetscope.handoff.to'] ?? '');
        if (from && to) {
          out.push({
            ms: event.timeMs,
            event: {
              t: 0,
              agent: participant(from),
              kind: 'handoff',
              payload: { from: participant(from), to: participant(to), messageId: null },
            },
          });
        }
      }
    }
  }

  private failIn(out: Timed[], ms: number, agent: string, message: string): void {
    out.push({ ms, event: { t: 0, agent, kind: 'error', payload: { code: 'span-error', message } } });
  }

  private toolCalls(message: ChatMessage, spanId: string, index: number): ToolCall[] {
    return message.toolCalls.map((call, i) => ({
      id: call.id ?? `${spanId}.out${index}.call${i}`,
      name: call.name || 'tool',
      arguments: call.arguments,
    }));
  }

  /** The oldest unanswered call of that name (by this agent when given). */
  private callIdByName(agent: string | null, name: string | undefined): string | undefined {
    if (!name) return undefined;
    for (const [id, call] of this.pendingCalls) {
      if (call.name === name && (agent === null || call.agent === agent) && !this.answeredCalls.has(id))
        return id;
    }
    return undefined;
  }

  private result(
    out: Timed[],
    startMs: number,
    endMs: number,
    agent: string,
    spanId: string,
    suffix: string,
    result: { callId: string; name: string; content: string; isError: boolean },
  ): void {
    this.answeredCalls.add(result.callId);
    const pending = this.pendingCalls.get(result.callId);
    this.pendingCalls.delete(result.callId);
    this.message(
      out,
      startMs,
      endMs,
      {
        id: `${spanId}.${suffix}`,
        from: agent,
        to: agent,
        kind: 'tool',
        content: result.content,
        meta: {},
        toolCalls: [],
        toolResults: [{ ...result, name: result.name || 'tool' }],
      },
      pending?.messageId,
    );
    out.push({
      ms: endMs,
      event: { t: 0, agent, kind: 'tool.executed', payload: { ...result, result: result.content } },
    });
  }

  private say(
    out: Timed[],
    ms: number,
    from: string,
    to: string,
    kind: MessageKind,
    content: string,
    meta: Record<string, unknown>,
    spanId: string,
    suffix: string,
  ): void {
    this.message(out, ms, ms, { id: `${spanId}.${suffix}`, from, to, kind, content, meta, toolCalls: [] });
  }

  private message(
    out: Timed[],
    startMs: number,
    endMs: number,
    draft: {
      id: string;
      from: string;
      to: string;
      kind: MessageKind;
      content: string;
      meta: Record<string, unknown>;
      toolCalls: ToolCall[];
      toolResults?: Message['toolResults'];
      usage?: TokenUsage;
    },
    parentOverride?: string,
  ): void {
    const threadId = this.threadId ?? draft.id;
    this.threadId = threadId;
    const parentId = parentOverride ?? this.previousId;
    this.previousId = draft.id;
    this.messageCount++;
    if (draft.from !== USER && draft.from !== 'system' && draft.from !== BROADCAST)
      this.agentInfo(draft.from);
    const agent = draft.from === USER || draft.from === 'system' ? null : draft.from;
    const { id: messageId, from, to, kind } = draft;
    out.push({
      ms: startMs,
      event: {
        t: 0,
        agent,
        kind: 'message.started',
        payload: { messageId, threadId, parentId, from, to, kind },
      },
    });
    const message: Message = {
      id: messageId,
      threadId,
      parentId,
      from,
      to,
      kind,
      content: draft.content,
      meta: draft.meta,
      ...(draft.toolCalls.length > 0 ? { toolCalls: draft.toolCalls } : {}),
      ...(draft.toolResults?.length ? { toolResults: draft.toolResults } : {}),
      ...(draft.usage ? { usage: draft.usage } : {}),
      state: 'complete',
      // Set from the event's clamped time when written (see `map`).
      t: 0,
    };
    out.push({ ms: endMs, event: { t: 0, agent, kind: 'message.completed', payload: { message } } });
  }
}

/** A participant named in a trace: the user and "everyone" as they are, others as agent names. */
function participant(name: string): string {
  if (name === USER || name === BROADCAST || name === 'system') return name;
  return agentName(name);
}

/** Token usage from the GenAI, OpenLLMetry and OpenInference attributes, when a count is there. */
function readUsage(reader: AttributeReader): TokenUsage | undefined {
  const prompt = reader.count(
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.prompt_tokens',
    'llm.token_count.prompt',
    'llm.usage.prompt_tokens',
  );
  const completion = reader.count(
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'llm.usage.completion_tokens',
  );
  for (const key of [
    'gen_ai.usage.input_tokens',
    'gen_ai.usage.prompt_tokens',
    'llm.token_count.prompt',
    'llm.usage.prompt_tokens',
    'gen_ai.usage.output_tokens',
    'gen_ai.usage.completion_tokens',
    'llm.token_count.completion',
    'llm.usage.completion_tokens',
    'llm.token_count.total',
    'llm.usage.total_tokens',
  ])
    reader.use(key);
  if (prompt === undefined && completion === undefined) return undefined;
  return { prompt: prompt ?? 0, completion: completion ?? 0 };
}

/** Attributes as JSON the event schema accepts (no NaN or Infinity). */
function jsonSafe(attributes: Attributes): Attributes {
  return JSON.parse(
    JSON.stringify(attributes, (_key, value: unknown) =>
      typeof value === 'number' && !Number.isFinite(value) ? String(value) : value,
    ),
  ) as Attributes;
}
