import { describe, expect, it } from 'vitest';
import { foldEvents, type Message, type RunEvent } from '@shared/domain';
import type { ImportedEvent } from '../../../../src-main/history/ports';
import { SessionMapper } from '../../../../src-main/interop/span-mapping/session-mapper';
import { SpanIndex } from '../../../../src-main/interop/span-mapping/span-index';
import type { TraceSpan } from '../../../../src-main/interop/span-mapping/span';
import { BASE, json, span } from './span-builders';

/** All spans as one complete batch, mapped as the file importer maps them. */
function mapAll(spans: TraceSpan[]): { events: RunEvent[]; sessions: number } {
  const index = new SpanIndex({ holdMs: 0, retainMs: Infinity, maxSpans: Infinity });
  index.add(spans, 0);
  const groups = index.drain(0, true);
  const all = [...groups.values()].flat().sort((a, b) => a.span.startMs - b.span.startMs);
  const mapper = new SessionMapper(Math.min(...all.map((s) => s.span.startMs)));
  const events = [...mapper.map(all, undefined, true), ...mapper.finish('done')];
  return { events: number(events), sessions: groups.size };
}

/** An agent's system prompt in the session's fleet (a trace's system prompts are configuration). */
function systemPromptOf(events: RunEvent[], agent: string): string | undefined {
  const started = events.find((event) => event.kind === 'session.started');
  if (started?.kind !== 'session.started') return undefined;
  return started.payload.fleet.agents.find((spec) => spec.name === agent)?.systemPrompt;
}

function number(events: ImportedEvent[]): RunEvent[] {
  return events.map((event, i) => ({ ...event, sessionId: 's', seq: i + 1 }) as RunEvent);
}

function messages(events: RunEvent[]): Message[] {
  return events.flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

const lines = (events: RunEvent[]) => messages(events).map((m) => `${m.from}>${m.to}:${m.kind}:${m.content}`);

describe('message content in every form the conventions have used', () => {
  it('per-message span events (gen_ai.user.message, gen_ai.choice) of the earlier GenAI conventions', () => {
    const chat = span(1, null, 'chat gpt-4', 0, 800, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4',
    });
    chat.events = [
      { name: 'gen_ai.system.message', timeMs: BASE, attributes: { content: 'Be brief.' } },
      {
        name: 'gen_ai.user.message',
        timeMs: BASE,
        attributes: { 'gen_ai.event.content': json({ content: 'Weather in Oslo?' }) },
      },
      {
        name: 'gen_ai.choice',
        timeMs: BASE + 800,
        attributes: {
          index: 0,
          finish_reason: 'tool_calls',
          message: json({
            role: 'assistant',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
            ],
          }),
        },
      },
    ];
    const { events } = mapAll([chat]);
    expect(lines(events)).toEqual(['user>assistant:text:Weather in Oslo?', 'assistant>assistant:function:']);
    expect(systemPromptOf(events, 'assistant')).toBe('Be brief.');
    expect(messages(events)[1]?.toolCalls).toEqual([
      { id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
    ]);
    // The events became messages: none is left over.
    expect(events.filter((e) => e.kind === 'span.unmapped')).toEqual([]);
  });

  it('indexed gen_ai.prompt.N / gen_ai.completion.N attributes (OpenLLMetry), tool calls included', () => {
    const { events } = mapAll([
      span(1, null, 'openai.chat', 0, 500, {
        'llm.request.type': 'chat',
        'gen_ai.prompt.0.role': 'system',
        'gen_ai.prompt.0.content': 'You are terse.',
        'gen_ai.prompt.1.role': 'user',
        'gen_ai.prompt.1.content': 'Add 2 and 3',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.finish_reason': 'tool_calls',
        'gen_ai.completion.0.tool_calls.0.id': 'call_add',
        'gen_ai.completion.0.tool_calls.0.name': 'add',
        'gen_ai.completion.0.tool_calls.0.arguments': '{"a":2,"b":3}',
        'gen_ai.usage.prompt_tokens': 12,
        'gen_ai.usage.completion_tokens': 4,
      }),
      span(2, null, 'openai.chat', 600, 900, {
        'llm.request.type': 'chat',
        'gen_ai.prompt.0.role': 'system',
        'gen_ai.prompt.0.content': 'You are terse.',
        'gen_ai.prompt.1.role': 'user',
        'gen_ai.prompt.1.content': 'Add 2 and 3',
        'gen_ai.prompt.2.role': 'assistant',
        'gen_ai.prompt.2.tool_calls.0.id': 'call_add',
        'gen_ai.prompt.2.tool_calls.0.name': 'add',
        'gen_ai.prompt.2.tool_calls.0.arguments': '{"a":2,"b":3}',
        'gen_ai.prompt.3.role': 'tool',
        'gen_ai.prompt.3.tool_call_id': 'call_add',
        'gen_ai.prompt.3.content': '5',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'It is 5.',
      }),
    ]);
    expect(lines(events)).toEqual([
      'user>assistant:text:Add 2 and 3',
      'assistant>assistant:function:',
      'assistant>assistant:tool:5',
      'assistant>user:text:It is 5.',
    ]);
    expect(systemPromptOf(events, 'assistant')).toBe('You are terse.');
    expect(messages(events)[2]?.toolResults).toEqual([
      { callId: 'call_add', name: 'add', content: '5', isError: false },
    ]);
    // The model call's span gives the call's duration.
    expect(messages(events)[1]?.usage).toEqual({ prompt: 12, completion: 4, durationMs: expect.any(Number) });
  });

  it('OpenInference: session.id groups traces, graph.node.id names agents, handoff spans become handoffs', () => {
    const llm = (
      id: number,
      parent: number,
      trace: string,
      start: number,
      text: string,
      extra: Record<string, string> = {},
    ) =>
      span(
        id,
        parent,
        'generation',
        start,
        start + 300,
        {
          'openinference.span.kind': 'LLM',
          'session.id': 'support-42',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.contents.0.message_content.type': 'text',
          'llm.output_messages.0.message.contents.0.message_content.text': text,
          ...extra,
        },
        { traceId: trace },
      );
    const { events, sessions } = mapAll([
      span(
        10,
        null,
        'Triage',
        0,
        2_000,
        { 'openinference.span.kind': 'AGENT', 'graph.node.id': 'triage', 'session.id': 'support-42' },
        { traceId: '1' },
      ),
      llm(11, 10, '1', 10, 'Sending you to billing.', {
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'I was charged twice',
      }),
      span(
        12,
        10,
        'handoff to Billing agent',
        400,
        410,
        { 'openinference.span.kind': 'TOOL' },
        { traceId: '1' },
      ),
      span(
        20,
        null,
        'Billing agent',
        5_000,
        7_000,
        { 'openinference.span.kind': 'AGENT', 'session.id': 'support-42' },
        { traceId: '2' },
      ),
      llm(21, 20, '2', 5_100, 'Refund issued.'),
    ]);
    expect(sessions).toBe(1);
    expect(lines(events)).toEqual([
      'user>triage:text:I was charged twice',
      'triage>user:text:Sending you to billing.',
      'Billing_agent>user:text:Refund issued.',
    ]);
    const handoffs = events.flatMap((e) => (e.kind === 'handoff' ? [e.payload] : []));
    expect(handoffs).toEqual([{ from: 'triage', to: 'Billing_agent', messageId: null }]);
  });

  it('a failed tool is a tool error; an exception event an error; an agent span error fails the session', () => {
    const tool = span(
      3,
      1,
      'execute_tool lookup',
      100,
      200,
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'c9' },
      {
        status: { code: 2, message: 'lookup timed out' },
      },
    );
    tool.events = [
      {
        name: 'exception',
        timeMs: BASE + 200,
        attributes: { 'exception.type': 'TimeoutError', 'exception.message': 'lookup timed out' },
      },
    ];
    const { events } = mapAll([
      span(
        1,
        null,
        'invoke_agent Finder',
        0,
        300,
        { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Finder' },
        { status: { code: 2, message: 'gave up' } },
      ),
      tool,
    ]);
    const result = messages(events).find((m) => m.kind === 'tool');
    expect(result?.toolResults).toEqual([
      { callId: 'c9', name: 'lookup', content: 'lookup timed out', isError: true },
    ]);
    expect(events.filter((e) => e.kind === 'error').map((e) => e.kind === 'error' && e.payload.code)).toEqual(
      ['TimeoutError', 'span-error'],
    );
    expect(events.at(-1)).toMatchObject({ kind: 'session.stopped', payload: { status: 'failed' } });
    expect(foldEvents(events).status).toBe('failed');
  });

  it('spans with no agent, model or tool meaning are kept as span.unmapped and counted', () => {
    const { events } = mapAll([
      span(1, null, 'chat', 0, 100, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.agent.name': 'a',
        'gen_ai.output.messages': json([{ role: 'assistant', parts: [{ type: 'text', content: 'hi' }] }]),
        'custom.flag': true,
      }),
      span(2, 1, 'SELECT users', 10, 20, { 'db.system': 'postgresql', 'db.statement': 'SELECT 1' }),
      span(3, 1, 'GET /health', 30, 40, { 'http.request.method': 'GET' }),
    ]);
    const view = foldEvents(events);
    expect(view.counters.unmapped).toEqual({ spans: 2, attributes: 1 });
    const kept = events.flatMap((e) => (e.kind === 'span.unmapped' ? [e.payload] : []));
    expect(kept.map((k) => [k.name, k.partly])).toEqual([
      ['chat', true],
      ['SELECT users', false],
      ['GET /health', false],
    ]);
    expect(kept[1]?.attributes).toEqual({ 'db.system': 'postgresql', 'db.statement': 'SELECT 1' });
  });
});
