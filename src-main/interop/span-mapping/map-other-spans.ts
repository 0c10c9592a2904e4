import { USER } from '@shared/domain';
import { agentName } from '../import/build-events';
import { stringify, type AttributeReader } from './attribute-reader';
import { readInputMessages, readOutputMessages, readSystemInstructions } from './chat-messages';
import { readEnding, readFleet } from './fleetscope-attributes';
import { mapInput } from './map-model-call';
import type { ResolvedSpan } from './span-index';
import type { SpanEvent } from './span';
import {
  AGENT_KEYS,
  FLEETSCOPE_AGENT_KEYS,
  MODEL_KEYS,
  PROVIDER_KEYS,
  fleetscopeParticipant,
} from './span-values';
import { failIn, type Timed, type TranscriptState } from './transcript-state';

export function mapTool(
  state: TranscriptState,
  resolved: ResolvedSpan,
  reader: AttributeReader,
  out: Timed[],
): void {
  const { span } = resolved;
  reader.use(...AGENT_KEYS, ...FLEETSCOPE_AGENT_KEYS);
  state.fleet ??= readFleet(reader);
  const toolName =
    reader.text('gen_ai.tool.name', 'tool.name') ?? (span.name.replace(/^execute_tool\s*/, '') || 'tool');
  reader.use('tool.name');
  // An MCP tool is named by its server: `server/tool` (Fleetscope's export, and others that say so).
  const server = reader.text('mcp.server.name', 'fleetscope.mcp.server');
  const name = server && !toolName.startsWith(`${server}/`) ? `${server}/${toolName}` : toolName;
  let callId = reader.text('gen_ai.tool.call.id', 'tool_call.id');
  const args =
    reader.text('gen_ai.tool.call.arguments', 'gen_ai.tool.args', 'input.value', 'traceloop.entity.input') ??
    '';
  const result =
    reader.text('gen_ai.tool.call.result', 'gen_ai.output', 'output.value', 'traceloop.entity.output') ?? '';
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
  let pending = callId ? state.pendingCalls.get(callId) : undefined;
  if (!pending) {
    const byName = state.callIdByName(agent, name) ?? state.callIdByName(null, name);
    if (byName && !callId) {
      callId = byName;
      pending = state.pendingCalls.get(byName);
    }
  }
  if (pending) agent = pending.agent;
  state.agentInfo(agent);
  const id = callId ?? `${span.spanId}.call`;
  if (state.answeredCalls.has(id)) return;
  // A tool span with no call id whose result a later model call already reported (span clocks
  // can put that call's start a fraction of a ms before this span's end).
  if (!pending && state.hasResult(agent, name, result)) return;
  if (!pending) {
    // A tool run without a model asking for it (or whose request was not traced).
    const messageId = `${span.spanId}.call`;
    state.message(out, span.startMs, span.startMs, {
      id: messageId,
      from: agent,
      to: agent,
      kind: 'function',
      content: '',
      meta: { otel: { traceId: span.traceId, spanId: span.spanId } },
      toolCalls: [{ id, name, arguments: args }],
    });
    state.pendingCalls.set(id, { agent, name, messageId });
    out.push({
      ms: span.startMs,
      event: {
        t: 0,
        agent,
        kind: 'tool.requested',
        payload: {
          messageId,
          callId: id,
          name,
          arguments: args,
          ...(server ? { server, tool: name.slice(server.length + 1) } : {}),
        },
      },
    });
  }
  const isError = span.status.code === 2;
  state.result(out, span.startMs, span.endMs, agent, span.spanId, 'result', {
    callId: id,
    name,
    content: result || (isError ? span.status.message : ''),
    isError,
  });
}

export function mapAgent(
  state: TranscriptState,

  resolved: ResolvedSpan,
  reader: AttributeReader,
  used: Set<SpanEvent>,
  out: Timed[],
): void {
  const { span, caller } = resolved;
  const agent = resolved.agent ?? 'assistant';
  reader.use(...AGENT_KEYS, ...FLEETSCOPE_AGENT_KEYS, 'gen_ai.agent.id', 'gen_ai.agent.version');
  state.fleet ??= readFleet(reader);
  state.ending ??= readEnding(reader);
  // What the span says about the agent; it becomes a node only once it says or does something.
  const info = state.declared.get(agent) ?? { name: agent, model: null, provider: null, description: '' };
  state.declared.set(agent, info);
  const description = reader.text('gen_ai.agent.description');
  if (description && description !== 'No description.') info.description ||= description;
  const model = reader.text(...MODEL_KEYS);
  for (const key of MODEL_KEYS) reader.use(key);
  info.model ??= model ?? null;
  const provider = reader.text(...PROVIDER_KEYS);
  for (const key of PROVIDER_KEYS) reader.use(key);
  info.provider ??= provider ?? null;
  const known = state.agents.get(agent);
  if (known) {
    known.description ||= info.description;
    known.model ??= info.model;
    known.provider ??= info.provider;
  }
  const system = readSystemInstructions(reader);
  if (system) state.configure(agent, system);
  reader.use('graph.node.parent_id');
  const hasInput =
    reader.has('gen_ai.input.messages') || reader.has('input.value') || reader.has('traceloop.entity.input');
  const inputs = hasInput ? readInputMessages(reader, [], used) : [];
  const entityInput = reader.text('traceloop.entity.input');
  if (entityInput) inputs.push({ role: 'user', text: entityInput, toolCalls: [] });
  inputs.forEach((input, index) => {
    if (input.role === 'assistant' || input.role === 'tool') return;
    mapInput(
      state,
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
    if (!output.text || state.seenText(agent, output.text) || state.lastOutput.get(agent) === output.text)
      return;
    state.isNew(agent, `assistant:${output.text}:`);
    const messageId = `${span.spanId}.out${index}`;
    state.remember(output.text, { speaker: agent, ms: span.endMs, messageId });
    state.hold(span.endMs, span.endMs, {
      id: messageId,
      from: agent,
      to: caller,
      kind: 'text',
      content: output.text,
      meta: { otel: { traceId: span.traceId, spanId: span.spanId } },
      toolCalls: [],
    });
  });
  if (span.status.code === 2) {
    if (caller === USER) state.failed = true;
    failIn(out, span.endMs, agent, span.status.message || `The agent "${agent}" failed.`);
  }
}

export function mapHandoff(
  state: TranscriptState,
  resolved: ResolvedSpan,
  reader: AttributeReader,
  out: Timed[],
): void {
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
export function mapSpanEvents(
  state: TranscriptState,
  resolved: ResolvedSpan,
  used: Set<SpanEvent>,
  out: Timed[],
): void {
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
            agent: fleetscopeParticipant(from),
            kind: 'handoff',
            payload: { from: fleetscopeParticipant(from), to: fleetscopeParticipant(to), messageId: null },
          },
        });
      }
    }
  }
}
