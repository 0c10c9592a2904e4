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
  readUsage,
} from './span-values';
import { transferTarget } from '../import/transfer-tools';
import { LONG_TEXT, textKey, words } from './said-index';
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
  const read = readUsage(reader);
  const fromFleetscope = Object.keys(span.attributes).some((key) => key.startsWith('fleetscope.'));
  // The call's model and provider (to price it by: Settings' overrides are per provider) and its
  // duration (the span's) where the usage lacks them. Another Fleetscope's usage stays as it was
  // recorded (its fleet names each agent's provider).
  const usage = read && {
    ...read,
    ...(read.model === undefined && model ? { model: model.slice(0, 200) } : {}),
    ...(read.provider === undefined && provider && !fromFleetscope
      ? { provider: provider.slice(0, 200) }
      : {}),
    ...(read.durationMs === undefined ? { durationMs: Math.max(0, span.endMs - span.startMs) } : {}),
  };
  const explicitTo = reader.text('fleetscope.message.to');
  const explicitKind = reader.text('fleetscope.message.kind');
  const sourceId = reader.text('fleetscope.message.id');
  reader.use('fleetscope.thread.id');
  if (system) state.configure(agent, system);
  state.beginInputs();
  inputs.forEach((input, index) =>
    mapInput(state, resolved, agent, caller, input, index, out, envelopes[index] ?? null),
  );
  state.endInputs();
  const answers = outputs.filter((message) => message.text !== '' || message.toolCalls.length > 0);
  const failure =
    answers.length === 0 && span.status.code === 2
      ? span.status.message || `The model call "${span.name}" failed.`
      : undefined;
  state.rawCalls.record(out, {
    ms: span.startMs,
    agent,
    callId: span.spanId,
    model: model ?? null,
    // Instructions sent beside the messages (`gen_ai.system_instructions`) were sent all the same.
    inputs:
      system && !inputs.some((input) => input.role === 'system' || input.role === 'developer')
        ? [{ role: 'system', text: system, toolCalls: [] }, ...inputs]
        : inputs,
    outputs: answers,
    usage: usage ?? null,
    ...(failure ? { error: failure } : {}),
  });
  if (failure) {
    failIn(out, span.endMs, agent, failure);
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
    state.remember(answer.text, { speaker: agent, ms: span.startMs, messageId });
    out.push({
      ms: span.startMs,
      event: { t: 0, agent, kind: 'agent.status', payload: { status: 'thinking' } },
    });
    const draft = {
      id: messageId,
      from: agent,
      to,
      kind,
      content: answer.text,
      meta,
      toolCalls: calls,
      usage: index === 0 ? usage : undefined,
      answer: true,
    };
    // A plain answer goes to whoever is found repeating it; to the caller when no one does.
    if (calls.length === 0 && !explicitTo && answer.text) state.hold(span.startMs, span.endMs, draft);
    else state.message(out, span.startMs, span.endMs, draft);
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
      // A transfer tool is a handoff (a Fleetscope export states its handoffs as events instead).
      const target = fromFleetscope ? null : transferTarget(call.name);
      if (target && target !== agent)
        out.push({
          ms: span.endMs,
          event: { t: 0, agent, kind: 'handoff', payload: { from: agent, to: target, messageId: null } },
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
      if (input.text) state.configure(agent, input.text);
      return;
    case 'user':
    case 'human':
      if (!input.text) return;
      if (envelope) {
        if (!state.isNew(agent, `user:${input.text}`)) return;
        state.firstUserText ??= input.text;
        const { from, to, kind } = envelope;
        state.say(out, at, from, to, kind, input.text, {}, span.spanId, suffix);
        state.remember(input.text, { speaker: from, ms: at, messageId: `${span.spanId}.${suffix}` });
        return;
      }
      if (state.firstReceipt(agent, input.text)) receive(state, resolved, agent, caller, input, suffix, out);
      return;
    case 'tool':
    case 'function':
    case 'ipython': {
      const callId = input.toolCallId ?? state.callIdByName(agent, input.name);
      if (!callId || state.answeredCalls.has(callId)) return;
      const pending = state.pendingCalls.get(callId);
      // The result belongs to the agent that called the tool (after a handoff, another agent
      // may be the one resending it).
      state.result(out, at, at, pending?.agent ?? agent, span.spanId, suffix, {
        callId,
        name: pending?.name ?? input.name ?? 'tool',
        content: input.text,
        isError: false,
      });
      return;
    }
    default: {
      // Another agent's words in a shared history: theirs, written once.
      if (input.toolCalls.length === 0 && input.text) {
        const hint = input.name ? state.participantNamed(input.name) : null;
        const said = state.pickSpeaker(state.said.saidWhole(input.text), agent, at, hint);
        if (said) {
          state.deliver(said, agent);
          return;
        }
      }
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
        input.role === 'assistant' || input.role === 'model'
          ? agent
          : state.participantNamed(input.name ?? input.role);
      state.remember(input.text, { speaker: from, ms: at, messageId });
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

/** The sender an input names (`name`, not the user) and the agent `graph.node.parent_id` names. */
function senderHints(
  state: TranscriptState,
  resolved: ResolvedSpan,
  input: ChatMessage,
): { named: string | null; parent: string | null } {
  const named =
    input.name && input.name !== USER && input.name !== 'user' ? state.participantNamed(input.name) : null;
  const parent = resolved.parentHint ? state.participantNamed(resolved.parentHint) : null;
  return { named, parent };
}

/**
 * Fewer words than this left around quotes, not counting labels ("Planner:", "2."), are framing
 * ("Planner said:", "Merge these:"), not a message.
 */
const FRAMING_WORDS = 4;
const LABEL = /^(\d+[.)]|.*:)$/;

/**
 * A user-role input `agent` receives for the first time. Words another participant said earlier
 * (the whole message, else quotes inside it) are theirs: their held answer goes to `agent`, and
 * nothing is written again. What is left is new: from the sender the input names, else the
 * enclosing agent that called this one, else the agent `graph.node.parent_id` names, else the user.
 * The user's (or the named sender's) only once no one has said those words (`look`): a span mapped later, stamped later
 * (a process whose clock runs behind) or exported later (another process's exporter), may say
 * them, so such an input waits (`TranscriptState.deferUserInput`) and is looked at again after
 * each batch, until it is `final`. Returns true once the input is settled.
 */
function receive(
  state: TranscriptState,
  resolved: ResolvedSpan,
  agent: string,
  caller: string,
  input: ChatMessage,
  suffix: string,
  out: Timed[],
  look: 'first' | 'again' | 'final' = 'first',
): boolean {
  const { span } = resolved;
  const at = span.startMs;
  const { named, parent } = senderHints(state, resolved, input);
  const hint = named ?? parent;
  if (state.seenText(agent, input.text)) return true;
  const whole = state.pickSpeaker(state.said.saidWhole(input.text), agent, at, hint);
  if (whole) {
    state.deliver(whole, agent);
    return true;
  }
  let rest = input.text;
  const quotes = state.said.quotes(input.text, (candidates) =>
    state.pickSpeaker(candidates, agent, at, hint),
  );
  if (quotes.length > 0) {
    for (const quote of quotes) state.deliver(quote.said, agent);
    const parts: string[] = [];
    let from = 0;
    for (const quote of quotes) {
      parts.push(input.text.slice(from, quote.from));
      from = quote.to;
    }
    parts.push(input.text.slice(from));
    rest = parts.join(' ').replace(/\s+/g, ' ').trim();
    if (words(rest).filter((word) => !LABEL.test(word.text)).length < FRAMING_WORDS) return true;
  }
  const known = parent !== null && parent !== USER && state.agents.has(parent) ? parent : null;
  const sender = named ?? (caller !== USER ? caller : (known ?? USER));
  const messageId = `${span.spanId}.${suffix}`;
  // The user's words, or words the input's `name` credits to someone not seen saying them: the
  // speaker's own span may still come, carrying the answer (and its usage) that this is.
  const unsaid = sender === USER || sender === named;
  if (unsaid && look === 'first') {
    // A long input (a document) is looked at again whole only: searching it for quotes after
    // every batch would cost its length each time; its last look searches it once more.
    let key: string | null = null;
    // A speaker is expected when the input names one (`name`) or graph.node.parent_id names an
    // agent not seen yet: those wait even while the session has shown one process only.
    const awaited = sender === named || (parent !== null && parent !== USER && !state.agents.has(parent));
    state.deferUserInput(at, sender === USER ? input.text : null, awaited, (later, final) => {
      if (final || input.text.length < LONG_TEXT)
        return receive(state, resolved, agent, caller, input, suffix, later, final ? 'final' : 'again');
      key ??= textKey(input.text);
      if (state.seenKey(agent, key)) return true;
      const said = state.pickSpeaker(state.said.saidWholeByKey(key), agent, at, hint);
      if (said) state.deliver(said, agent);
      return said !== null;
    });
    return false;
  }
  if (unsaid && look === 'again') return false;
  if (sender === USER) state.firstUserText ??= rest;
  state.remember(rest, { speaker: sender, ms: at, messageId });
  state.say(out, at, sender, agent, 'text', rest, {}, span.spanId, suffix);
  return true;
}
