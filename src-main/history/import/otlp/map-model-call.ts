import { USER, type MessageKind } from '@shared/domain';
import type { AttributeReader } from './attribute-reader';
import {
  readInputMessages,
  readOutputMessages,
  readSystemInstructions,
  type ChatMessage,
} from './chat-messages';
import { readFleet, readInputEnvelopes, type InputEnvelope } from './fleetscope-attributes';
import type { ResolvedSpan } from './span-index';
import type { SpanEvent } from './span';
import {
  AGENT_KEYS,
  FLEETSCOPE_AGENT_KEYS,
  MESSAGE_KINDS_SET,
  MODEL_KEYS,
  PROVIDER_KEYS,
  fleetscopeParticipant,
  participant,
  readUsage,
} from './span-values';
import { failIn, type Timed, type TranscriptState } from './transcript-state';

/**
 * A model call by agent A for caller C: new system instructions and inputs first (a user turn
 * is C speaking to A; earlier assistant turns and tool results not seen before are A's), then
 * A's answer from the span's start to its end, addressed to C (to A itself when it calls
 * tools), with usage; each tool call a `tool.requested`.
 */
export function mapModelCall(
  state: TranscriptState,

  resolved: ResolvedSpan,
  reader: AttributeReader,
  used: Set<SpanEvent>,
  out: Timed[],
): void {
  const { span, caller } = resolved;
  const agent = resolved.agent ?? 'assistant';
  reader.use(...AGENT_KEYS, ...FLEETSCOPE_AGENT_KEYS);
  state.fleet ??= readFleet(reader);
  const info = state.agentInfo(agent);
  const model = reader.text(...MODEL_KEYS);
  for (const key of MODEL_KEYS) reader.use(key);
  const provider = reader.text(...PROVIDER_KEYS);
  for (const key of PROVIDER_KEYS) reader.use(key);
  info.model ??= model ?? null;
  info.provider ??= provider ?? null;
  const system = readSystemInstructions(reader);
  const inputs = readInputMessages(reader, span.events, used);
  const envelopes = readInputEnvelopes(reader);
  const outputs = readOutputMessages(reader, span.events, used);
  const usage = readUsage(reader);
  const explicitTo = reader.text('fleetscope.message.to');
  const explicitKind = reader.text('fleetscope.message.kind');
  const sourceId = reader.text('fleetscope.message.id');
  reader.use('fleetscope.thread.id');
  const at = span.startMs;
  if (system && state.isNew(agent, `system:${system}`))
    state.say(out, at, 'system', agent, 'system', system, {}, span.spanId, 'sys');
  inputs.forEach((input, index) =>
    mapInput(state, resolved, agent, caller, input, index, out, envelopes[index] ?? null),
  );
  const answers = outputs.filter((message) => message.text !== '' || message.toolCalls.length > 0);
  if (answers.length === 0 && span.status.code === 2) {
    failIn(out, span.endMs, agent, span.status.message || `The model call "${span.name}" failed.`);
    return;
  }
  answers.forEach((answer, index) => {
    const calls = state.toolCalls(answer, span.spanId, index);
    const kind: MessageKind =
      explicitKind && MESSAGE_KINDS_SET.has(explicitKind)
        ? (explicitKind as MessageKind)
        : calls.length > 0
          ? 'function'
          : 'text';
    const to = explicitTo ? fleetscopeParticipant(explicitTo) : calls.length > 0 ? agent : caller;
    const meta: Record<string, unknown> = { otel: { traceId: span.traceId, spanId: span.spanId } };
    if (model) meta.model = model;
    if (answer.reasoning) meta.reasoning = answer.reasoning;
    if (answer.finishReason) meta.finishReason = answer.finishReason;
    if (sourceId) meta.sourceMessageId = sourceId;
    const messageId = `${span.spanId}.out${index}`;
    state.isNew(agent, `assistant:${answer.text}:${calls.map((call) => call.id).join(',')}`);
    state.lastOutput.set(agent, answer.text);
    out.push({
      ms: span.startMs,
      event: { t: 0, agent, kind: 'agent.status', payload: { status: 'thinking' } },
    });
    state.message(out, span.startMs, span.endMs, {
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
      state.pendingCalls.set(call.id, { agent, name: call.name, messageId });
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

/**
 * One message of what a model was sent, added to the transcript when it is new; `envelope` (from
 * a Fleetscope export) says who sent a user message, to whom and of what kind.
 */
export function mapInput(
  state: TranscriptState,

  resolved: ResolvedSpan,
  agent: string,
  caller: string,
  input: ChatMessage,
  index: number,
  out: Timed[],
  envelope: InputEnvelope | null = null,
): void {
  const { span } = resolved;
  const at = span.startMs;
  const suffix = `in${index}`;
  switch (input.role) {
    case 'system':
    case 'developer':
      if (input.text && state.isNew(agent, `system:${input.text}`)) {
        state.say(out, at, 'system', agent, 'system', input.text, {}, span.spanId, suffix);
      }
      return;
    case 'user':
    case 'human':
      if (input.text && state.isNew(agent, `user:${input.text}`)) {
        state.firstUserText ??= input.text;
        if (envelope) {
          const { from, to, kind } = envelope;
          state.say(out, at, from, to, kind, input.text, {}, span.spanId, suffix);
          return;
        }
        const from = caller === USER && input.name ? participant(input.name) : caller;
        state.say(out, at, from, agent, 'text', input.text, {}, span.spanId, suffix);
      }
      return;
    case 'tool':
    case 'function':
    case 'ipython': {
      const callId = input.toolCallId ?? state.callIdByName(agent, input.name);
      if (!callId || state.answeredCalls.has(callId)) return;
      const pending = state.pendingCalls.get(callId);
      state.result(out, at, at, agent, span.spanId, suffix, {
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
        (state.seen.get(agent)?.has(key) ?? false) ||
        (calls.length > 0 &&
          calls.every((call) => state.pendingCalls.has(call.id) || state.answeredCalls.has(call.id)));
      if (known || (!input.text && calls.length === 0)) return;
      if (calls.length === 0 && state.seenText(agent, input.text)) return;
      state.isNew(agent, key);
      const messageId = `${span.spanId}.${suffix}`;
      const from =
        input.role === 'assistant' || input.role === 'model' ? agent : participant(input.name ?? input.role);
      state.message(out, at, at, {
        id: messageId,
        from,
        to: calls.length > 0 ? from : caller,
        kind: calls.length > 0 ? 'function' : 'text',
        content: input.text,
        meta: { otel: { traceId: span.traceId, spanId: span.spanId }, fromInput: true },
        toolCalls: calls,
      });
      for (const call of calls) {
        if (state.pendingCalls.has(call.id) || state.answeredCalls.has(call.id)) continue;
        state.pendingCalls.set(call.id, { agent: from, name: call.name, messageId });
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
