import {
  BROADCAST,
  USER,
  type FleetInput,
  type TokenUsage,
  type Message,
  type RunEvent,
  type SessionStatus,
  LIVE_STATUSES,
} from '@shared/domain';
import {
  SPAN_KIND,
  attributes,
  spanIdFor,
  traceIdFor,
  unixNano,
  type OtlpEvent,
  type OtlpSpan,
} from './otlp-span';

/** `gen_ai.provider.name` when the agent's provider is not recorded (an imported transcript). */
const OTHER_PROVIDER = '_OTHER';
const NOT_AGENTS = new Set([USER, BROADCAST, 'system']);

/** The session facts the root span carries; events may update status and stop reason. */
export interface OtlpSessionInfo {
  id: string;
  /** Epoch milliseconds; event times are offsets from it. */
  createdAt: number;
  fleetName: string;
  title: string;
  status: SessionStatus;
  stopReason: string | null;
  source: string;
  /** The session this one was forked from, and at which event. */
  parentSessionId?: string | null;
  forkSeq?: number | null;
}

interface PendingTool {
  t: number;
  name: string;
  /** For an MCP tool: its server and its name there. */
  mcp?: McpToolName;
  arguments: string;
  messageId: string;
  agent: string | null;
}

/** What the person said since the last agent turn, with the envelope GenAI messages lack. */
interface UserInput {
  id: string;
  from: string;
  to: string;
  kind: string;
  content: string;
}

/**
 * The session-to-spans mapping of the OTLP export (OpenTelemetry GenAI semantic conventions),
 * one event at a time, so the file export and the live export share it: one trace per session; a
 * root `invoke_agent {fleet}` span; a `chat {model}` span per agent turn (each completed agent
 * message, with what the person said since the previous turn as its input messages); an
 * `execute_tool {name}` span per tool call, parented to the turn that asked for it. Handoffs and
 * errors are events on the root span. Ids are derived from the session id, so the
 * same session always maps to the same trace.
 *
 * What the GenAI conventions have no attribute for travels as `fleetscope.*`, so another
 * Fleetscope rebuilds the session as it was: `fleetscope.agent.id` (the agent's id with its
 * nested team path, `research/analyst`, where `gen_ai.agent.name` may be cut to a plain name by
 * other tools) and `fleetscope.agent.team` (that team path); `fleetscope.message.*` (each turn's
 * id, addressee and kind) and `fleetscope.input.messages` (the same for each input message);
 * `fleetscope.fleet` (the fleet as JSON, on the first span only); on the root span the session's
 * status, stop reason and `fleetscope.session.end` once the run ended.
 */
export class OtlpSpanMapper {
  readonly traceId: string;
  readonly rootSpanId: string;
  private models: Map<string, { provider: string; model: string }>;
  private readonly startedAt = new Map<string, number>();
  /** The runtime records usage as its own event just before the message completes. */
  private readonly usageOf = new Map<string, TokenUsage>();
  private readonly turns = new Set<string>();
  private readonly tools = new Map<string, PendingTool>();
  /** What the person said (the task, follow-ups, answers) since the last agent turn. */
  private userInputs: UserInput[] = [];
  private fleet: FleetInput | null;
  /** Set once a span carried `fleetscope.fleet`. */
  private fleetSent = false;
  private readonly rootEvents: Array<{ t: number; event: OtlpEvent }> = [];
  private endT = 0;
  private readonly session: OtlpSessionInfo;

  constructor(session: OtlpSessionInfo, fleet: FleetInput | null) {
    this.session = { ...session };
    this.traceId = traceIdFor(session.id);
    this.rootSpanId = spanIdFor(session.id, 'session');
    this.models = modelsOf(fleet);
    this.fleet = fleet;
  }

  /** The span this event completes, if any. */
  push(event: RunEvent): OtlpSpan | null {
    this.endT = Math.max(this.endT, event.t);
    switch (event.kind) {
      case 'session.started':
        this.models = modelsOf(event.payload.fleet);
        this.fleet = event.payload.fleet;
        return null;
      case 'message.started':
        this.startedAt.set(event.payload.messageId, event.t);
        return null;
      case 'message.completed':
        return this.turnSpan(event.payload.message, event.t);
      case 'usage':
        this.usageOf.set(event.payload.messageId, event.payload.usage);
        return null;
      case 'tool.requested': {
        const { callId, name, messageId, server, tool } = event.payload;
        this.tools.set(callId, {
          t: event.t,
          name,
          ...(server !== undefined && tool !== undefined ? { mcp: { server, tool } } : {}),
          arguments: event.payload.arguments,
          messageId,
          agent: event.agent,
        });
        return null;
      }
      case 'tool.executed':
        return this.toolSpan(event.payload, event.t, event.agent);
      case 'handoff':
        this.rootEvents.push({
          t: event.t,
          event: {
            name: 'fleetscope.handoff',
            timeUnixNano: this.at(event.t),
            attributes: attributes({
              'fleetscope.handoff.from': event.payload.from,
              'fleetscope.handoff.to': event.payload.to,
            }),
          },
        });
        return null;
      case 'error':
        this.rootEvents.push({
          t: event.t,
          event: {
            name: 'exception',
            timeUnixNano: this.at(event.t),
            attributes: attributes({
              'exception.type': event.payload.code,
              'exception.message': event.payload.message,
            }),
          },
        });
        return null;
      case 'session.stopped':
        this.session.status = event.payload.status;
        this.session.stopReason = event.payload.stopReason;
        return null;
      case 'session.status':
        this.session.status = event.payload.status;
        return null;
      default:
        return null;
    }
  }

  /** Tool calls that never got a result, as error spans ending at the last event; forgets them. */
  unfinishedTools(): OtlpSpan[] {
    const spans: OtlpSpan[] = [];
    for (const [callId, request] of this.tools) {
      spans.push(
        this.span(`tool:${callId}`, this.turnParent(request.messageId), {
          name: `execute_tool ${toolLabel(request.name, request.mcp)}`,
          kind: SPAN_KIND.internal,
          startTimeUnixNano: this.at(request.t),
          endTimeUnixNano: this.at(this.endT),
          attributes: this.toolAttributes(
            request.name,
            callId,
            request.arguments,
            undefined,
            request.agent,
            request.mcp,
          ),
          events: [],
          status: { code: 2, message: 'The tool call never completed.' },
        }),
      );
    }
    this.tools.clear();
    return spans;
  }

  /** The root span as of the last event: the whole session so far, with its handoffs and errors. */
  rootSpan(): OtlpSpan {
    const { session } = this;
    return {
      traceId: this.traceId,
      spanId: this.rootSpanId,
      name: `invoke_agent ${session.fleetName}`,
      kind: SPAN_KIND.internal,
      startTimeUnixNano: this.at(0),
      endTimeUnixNano: this.at(this.endT),
      attributes: attributes({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': session.fleetName,
        'gen_ai.conversation.id': session.id,
        'fleetscope.session.title': session.title,
        'fleetscope.session.status': session.status,
        'fleetscope.session.stop_reason': session.stopReason ?? undefined,
        'fleetscope.session.source': session.source,
        'fleetscope.session.parent_id': session.parentSessionId ?? undefined,
        'fleetscope.session.fork_seq': session.forkSeq ?? undefined,
        'fleetscope.session.end': isLive(session.status) ? undefined : true,
        ...this.fleetAttribute(),
      }),
      events: this.rootEvents.map((entry) => entry.event),
      status:
        session.status === 'failed' ? { code: 2, message: session.stopReason ?? 'failed' } : { code: 1 },
    };
  }

  /**
   * A span for one later run of the session (a continuation, which the root span, already sent,
   * cannot grow to cover): under the root, from `startT` to the last event, with the handoffs and
   * errors since `startT`.
   */
  segmentSpan(key: string, startT: number): OtlpSpan {
    const root = this.rootSpan();
    return {
      ...root,
      spanId: spanIdFor(this.session.id, key),
      parentSpanId: this.rootSpanId,
      startTimeUnixNano: this.at(startT),
      events: this.rootEvents.filter((entry) => entry.t >= startT).map((entry) => entry.event),
    };
  }

  /** `fleetscope.fleet` for the first span that asks; nothing after that. */
  private fleetAttribute(): { 'fleetscope.fleet'?: string } {
    if (this.fleetSent || this.fleet === null) return {};
    this.fleetSent = true;
    return { 'fleetscope.fleet': JSON.stringify(this.fleet) };
  }

  private at(t: number): string {
    return unixNano(this.session.createdAt + t);
  }

  private span(
    key: string,
    parent: string,
    fields: Omit<OtlpSpan, 'traceId' | 'spanId' | 'parentSpanId'>,
  ): OtlpSpan {
    return {
      traceId: this.traceId,
      spanId: spanIdFor(this.session.id, key),
      parentSpanId: parent,
      ...fields,
    };
  }

  private turnParent(messageId: string): string {
    return this.turns.has(messageId) ? spanIdFor(this.session.id, `message:${messageId}`) : this.rootSpanId;
  }

  private turnSpan(message: Message, t: number): OtlpSpan | null {
    const start = this.startedAt.get(message.id) ?? t;
    this.startedAt.delete(message.id);
    const usage = message.usage ?? this.usageOf.get(message.id);
    this.usageOf.delete(message.id);
    if (message.from === USER && message.content) {
      const { id, from, to, kind, content } = message;
      this.userInputs.push({ id, from, to, kind, content });
    }
    if (!isAgentTurn(message)) return null;
    // The next turn's model call is the first to see what the person said: it goes in as input.
    const said = this.userInputs;
    const inputs = said.map(({ content }) => ({ role: 'user', parts: [{ type: 'text', content }] }));
    const envelopes = said.map(({ id, from, to, kind }) => ({ id, from, to, kind }));
    this.userInputs = [];
    this.turns.add(message.id);
    const model = this.models.get(message.from);
    return this.span(`message:${message.id}`, this.rootSpanId, {
      name: model?.model ? `chat ${model.model}` : 'chat',
      kind: SPAN_KIND.client,
      startTimeUnixNano: this.at(start),
      endTimeUnixNano: this.at(Math.max(start, t)),
      attributes: attributes({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': model?.provider ?? OTHER_PROVIDER,
        'gen_ai.system': model?.provider ?? OTHER_PROVIDER,
        'gen_ai.request.model': model?.model,
        'gen_ai.agent.name': message.from,
        ...agentIdentity(message.from),
        'gen_ai.conversation.id': this.session.id,
        'gen_ai.usage.input_tokens': usage?.prompt,
        'gen_ai.usage.output_tokens': usage?.completion,
        ...usageAttributes(usage),
        'gen_ai.input.messages': inputs.length > 0 ? JSON.stringify(inputs) : undefined,
        'fleetscope.input.messages': envelopes.length > 0 ? JSON.stringify(envelopes) : undefined,
        'gen_ai.output.messages': JSON.stringify([outputMessage(message)]),
        'fleetscope.message.id': message.id,
        'fleetscope.message.to': message.to,
        'fleetscope.message.kind': message.kind,
        'fleetscope.thread.id': message.threadId,
        ...this.fleetAttribute(),
      }),
      events: [],
      status: { code: message.kind === 'error' ? 2 : 0 },
    });
  }

  private toolSpan(
    executed: {
      callId: string;
      name: string;
      result: string;
      isError: boolean;
      server?: string;
      tool?: string;
    },
    t: number,
    agent: string | null,
  ): OtlpSpan {
    const { callId, name, result, isError } = executed;
    const request = this.tools.get(callId);
    this.tools.delete(callId);
    const mcp =
      request?.mcp ??
      (executed.server !== undefined && executed.tool !== undefined
        ? { server: executed.server, tool: executed.tool }
        : undefined);
    return this.span(`tool:${callId}`, request ? this.turnParent(request.messageId) : this.rootSpanId, {
      name: `execute_tool ${toolLabel(name, mcp)}`,
      kind: SPAN_KIND.internal,
      startTimeUnixNano: this.at(request?.t ?? t),
      endTimeUnixNano: this.at(t),
      attributes: this.toolAttributes(name, callId, request?.arguments, result, request?.agent ?? agent, mcp),
      events: [],
      status: isError ? { code: 2, message: 'The tool reported an error.' } : { code: 0 },
    });
  }

  private toolAttributes(
    name: string,
    callId: string,
    args: string | undefined,
    result: string | undefined,
    agent: string | null,
    mcp?: McpToolName,
  ) {
    return attributes({
      'gen_ai.operation.name': 'execute_tool',
      // An MCP tool: its name on its server, and the server's name beside it.
      'gen_ai.tool.name': mcp?.tool ?? name,
      [MCP_SERVER_ATTRIBUTE]: mcp?.server,
      'gen_ai.tool.call.id': callId,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.arguments': args,
      'gen_ai.tool.call.result': result,
      'gen_ai.agent.name': agent ?? undefined,
      ...(agent ? agentIdentity(agent) : {}),
      'gen_ai.conversation.id': this.session.id,
      ...this.fleetAttribute(),
    });
  }
}

/** An MCP tool's server and its name there. */
interface McpToolName {
  server: string;
  tool: string;
}

/** The attribute naming an MCP tool's server on its `execute_tool` span (read back on import). */
export const MCP_SERVER_ATTRIBUTE = 'mcp.server.name';

/** How a tool span is named: `server/tool` for an MCP tool. */
function toolLabel(name: string, mcp: McpToolName | undefined): string {
  return mcp ? `${mcp.server}/${mcp.tool}` : name;
}

/** A session still driven by a run (its root span is not its last word yet). */
function isLive(status: SessionStatus): boolean {
  return (LIVE_STATUSES as readonly string[]).includes(status);
}

/** `fleetscope.agent.id` (the full id, team path included) and `fleetscope.agent.team` (the path). */
function agentIdentity(id: string): Record<string, string> {
  const slash = id.lastIndexOf('/');
  return slash < 0
    ? { 'fleetscope.agent.id': id }
    : { 'fleetscope.agent.id': id, 'fleetscope.agent.team': id.slice(0, slash) };
}

/** Each agent's model by its id, nested teams' agents under their path (`team/agent`). */
function modelsOf(
  fleet: FleetInput | null,
  prefix = '',
  models = new Map<string, { provider: string; model: string }>(),
): Map<string, { provider: string; model: string }> {
  for (const agent of fleet?.agents ?? []) {
    const id = `${prefix}${agent.name}`;
    if (agent.provider) models.set(id, { provider: agent.provider.id, model: agent.provider.model });
    if (agent.fleet) modelsOf(agent.fleet, `${id}/`, models);
  }
  return models;
}

/** An agent turn is a message an agent produced; tool outputs and user or system text are not. */
function isAgentTurn(message: Message): boolean {
  return !NOT_AGENTS.has(message.from) && message.kind !== 'tool' && message.kind !== 'system';
}

/** `gen_ai.output.messages` item (role, parts, finish_reason) for one agent message. */
function outputMessage(message: Message): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [];
  if (message.content) parts.push({ type: 'text', content: message.content });
  for (const call of message.toolCalls ?? []) {
    parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
  }
  return { role: 'assistant', parts, finish_reason: message.toolCalls?.length ? 'tool_call' : 'stop' };
}

/**
 * The usage details beyond the token pair: cached input tokens under the semantic conventions'
 * `gen_ai.usage.cache_read.input_tokens`, the model that answered as `gen_ai.response.model`;
 * reasoning tokens, time to first token and the cost (US dollars; absent when no price is known)
 * have no convention, so they go under `fleetscope.usage.*`. The receiver reads them back.
 */
export function usageAttributes(usage: TokenUsage | undefined): Record<string, string | number | undefined> {
  if (!usage) return {};
  return {
    'gen_ai.usage.cache_read.input_tokens': usage.cached,
    'gen_ai.response.model': usage.model,
    'fleetscope.usage.reasoning_tokens': usage.reasoning,
    'fleetscope.usage.first_token_ms': usage.firstTokenMs,
    'fleetscope.usage.duration_ms': usage.durationMs,
    'fleetscope.usage.cost_usd': typeof usage.cost === 'number' ? usage.cost : undefined,
  };
}
