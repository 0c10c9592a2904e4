import { BROADCAST, USER, type FleetInput, type Message, type SessionStatus } from '@shared/domain';
import type { RenderInput } from './render-types';
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

interface PendingTool {
  t: number;
  name: string;
  arguments: string;
  messageId: string;
  agent: string | null;
}

/**
 * OTLP/JSON following the OpenTelemetry GenAI semantic conventions: one trace per session; a root
 * `invoke_agent {fleet}` span; a `chat {model}` span per agent turn (each completed agent
 * message); an `execute_tool {name}` span per tool call, parented to the turn that asked for it.
 * Handoffs and errors are events on the root span. Spans are written as they complete.
 */
export function* renderOtlp(input: RenderInput): Generator<string> {
  const { summary } = input;
  const traceId = traceIdFor(summary.id);
  const rootId = spanIdFor(summary.id, 'session');
  const at = (t: number): string => unixNano(summary.createdAt + t);
  let models = modelsOf(input.fleet);
  const resource = attributes({ 'service.name': 'fleetscope', 'fleetscope.session.id': summary.id });
  yield `{"resourceSpans":[{"resource":{"attributes":${JSON.stringify(resource)}},"scopeSpans":[{"scope":{"name":"fleetscope.history.export","version":"1"},"spans":[`;
  let separator = '\n';
  const emit = (span: OtlpSpan): string => {
    const text = separator + JSON.stringify(span);
    separator = ',\n';
    return text;
  };
  const span = (
    key: string,
    parent: string,
    fields: Omit<OtlpSpan, 'traceId' | 'spanId' | 'parentSpanId'>,
  ): OtlpSpan => ({
    traceId,
    spanId: spanIdFor(summary.id, key),
    parentSpanId: parent,
    ...fields,
  });
  const startedAt = new Map<string, number>();
  /** The runtime records usage as its own event just before the message completes. */
  const usageOf = new Map<string, { prompt: number; completion: number }>();
  const turns = new Set<string>();
  const tools = new Map<string, PendingTool>();
  const rootEvents: OtlpEvent[] = [];
  let status: SessionStatus = summary.status;
  let endT = 0;
  for (const event of input.events) {
    endT = Math.max(endT, event.t);
    switch (event.kind) {
      case 'session.started':
        models = modelsOf(event.payload.fleet);
        break;
      case 'message.started':
        startedAt.set(event.payload.messageId, event.t);
        break;
      case 'message.completed': {
        const message = event.payload.message;
        const start = startedAt.get(message.id) ?? event.t;
        startedAt.delete(message.id);
        const usage = message.usage ?? usageOf.get(message.id);
        usageOf.delete(message.id);
        if (!isAgentTurn(message)) break;
        turns.add(message.id);
        const model = models.get(message.from);
        yield emit(
          span(`message:${message.id}`, rootId, {
            name: model?.model ? `chat ${model.model}` : 'chat',
            kind: SPAN_KIND.client,
            startTimeUnixNano: at(start),
            endTimeUnixNano: at(Math.max(start, event.t)),
            attributes: attributes({
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': model?.provider ?? OTHER_PROVIDER,
              'gen_ai.system': model?.provider ?? OTHER_PROVIDER,
              'gen_ai.request.model': model?.model,
              'gen_ai.agent.name': message.from,
              'gen_ai.conversation.id': summary.id,
              'gen_ai.usage.input_tokens': usage?.prompt,
              'gen_ai.usage.output_tokens': usage?.completion,
              'gen_ai.output.messages': JSON.stringify([outputMessage(message)]),
              'fleetscope.message.id': message.id,
              'fleetscope.message.to': message.to,
              'fleetscope.message.kind': message.kind,
              'fleetscope.thread.id': message.threadId,
            }),
            events: [],
            status: { code: message.kind === 'error' ? 2 : 0 },
          }),
        );
        break;
      }
      case 'usage':
        usageOf.set(event.payload.messageId, event.payload.usage);
        break;
      case 'tool.requested': {
        const { callId, name, messageId } = event.payload;
        tools.set(callId, {
          t: event.t,
          name,
          arguments: event.payload.arguments,
          messageId,
          agent: event.agent,
        });
        break;
      }
      case 'tool.executed': {
        const request = tools.get(event.payload.callId);
        tools.delete(event.payload.callId);
        const { callId, name, result, isError } = event.payload;
        const parent =
          request && turns.has(request.messageId)
            ? spanIdFor(summary.id, `message:${request.messageId}`)
            : rootId;
        yield emit(
          span(`tool:${callId}`, parent, {
            name: `execute_tool ${name}`,
            kind: SPAN_KIND.internal,
            startTimeUnixNano: at(request?.t ?? event.t),
            endTimeUnixNano: at(event.t),
            attributes: toolAttributes(
              name,
              callId,
              request?.arguments,
              result,
              request?.agent ?? event.agent,
              summary.id,
            ),
            events: [],
            status: isError ? { code: 2, message: 'The tool reported an error.' } : { code: 0 },
          }),
        );
        break;
      }
      case 'handoff':
        rootEvents.push({
          name: 'fleetscope.handoff',
          timeUnixNano: at(event.t),
          attributes: attributes({
            'fleetscope.handoff.from': event.payload.from,
            'fleetscope.handoff.to': event.payload.to,
          }),
        });
        break;
      case 'error':
        rootEvents.push({
          name: 'exception',
          timeUnixNano: at(event.t),
          attributes: attributes({
            'exception.type': event.payload.code,
            'exception.message': event.payload.message,
          }),
        });
        break;
      case 'session.stopped':
      case 'session.status':
        status = event.payload.status;
        break;
      default:
        break;
    }
  }
  for (const [callId, request] of tools) {
    const parent = turns.has(request.messageId)
      ? spanIdFor(summary.id, `message:${request.messageId}`)
      : rootId;
    yield emit(
      span(`tool:${callId}`, parent, {
        name: `execute_tool ${request.name}`,
        kind: SPAN_KIND.internal,
        startTimeUnixNano: at(request.t),
        endTimeUnixNano: at(endT),
        attributes: toolAttributes(
          request.name,
          callId,
          request.arguments,
          undefined,
          request.agent,
          summary.id,
        ),
        events: [],
        status: { code: 2, message: 'The tool call never completed.' },
      }),
    );
  }
  const root: OtlpSpan = {
    traceId,
    spanId: rootId,
    name: `invoke_agent ${summary.fleetName}`,
    kind: SPAN_KIND.internal,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(endT),
    attributes: attributes({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': summary.fleetName,
      'gen_ai.conversation.id': summary.id,
      'fleetscope.session.title': summary.title,
      'fleetscope.session.status': status,
      'fleetscope.session.stop_reason': summary.stopReason ?? undefined,
      'fleetscope.session.source': summary.source,
    }),
    events: rootEvents,
    status: status === 'failed' ? { code: 2, message: summary.stopReason ?? 'failed' } : { code: 1 },
  };
  yield emit(root);
  yield '\n]}]}]}\n';
}

function modelsOf(fleet: FleetInput | null): Map<string, { provider: string; model: string }> {
  const models = new Map<string, { provider: string; model: string }>();
  for (const agent of fleet?.agents ?? []) {
    if (agent.provider) models.set(agent.name, { provider: agent.provider.id, model: agent.provider.model });
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

function toolAttributes(
  name: string,
  callId: string,
  args: string | undefined,
  result: string | undefined,
  agent: string | null,
  sessionId: string,
) {
  return attributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.id': callId,
    'gen_ai.tool.type': 'function',
    'gen_ai.tool.call.arguments': args,
    'gen_ai.tool.call.result': result,
    'gen_ai.agent.name': agent ?? undefined,
    'gen_ai.conversation.id': sessionId,
  });
}
