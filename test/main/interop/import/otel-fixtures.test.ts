import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Fleet, Message, RunEvent } from '@shared/domain';
import { foldEvents } from '@shared/domain';
import { importFile } from '../../../../src-main/interop/import';
import { MemorySessions } from '../../../helpers/memory-sessions';

const REAL = fileURLToPath(new URL('../../../fixtures/real/', import.meta.url));

async function load(file: string) {
  const store = new MemorySessions();
  const result = await importFile(REAL + file, store);
  const session = store.sessions.get(result.sessionId);
  if (!session) throw new Error('not stored');
  const started = session.events.find((event) => event.kind === 'session.started');
  const fleet = (started?.kind === 'session.started' ? started.payload.fleet : null) as Fleet;
  return { result, session, events: session.events, fleet };
}

function messages(events: RunEvent[]): Message[] {
  return events.flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

/** Every text the transcript holds: message contents and tool results. */
function transcriptText(events: RunEvent[]): string {
  return messages(events)
    .flatMap((message) => [message.content, ...(message.toolResults ?? []).map((result) => result.content)])
    .join('\n\u0000\n');
}

const json = (file: string): unknown => JSON.parse(readFileSync(REAL + file, 'utf8'));

describe('importing the real OpenTelemetry fixtures', () => {
  it('the OpenAI Agents SDK trace in GenAI conventions (any-agent) keeps every text, both tool round trips and the timing', async () => {
    const { result, events, fleet, session } = await load('anyagent-openai-agents-genai-semconv-trace.json');
    expect(result.format).toBe('any-agent-trace');
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['any_agent']);
    expect(fleet.agents[0]?.provider?.model).toBe('mistral/mistral-small-latest');
    const trace = json('anyagent-openai-agents-genai-semconv-trace.json') as {
      spans: Array<{ attributes: Record<string, unknown> }>;
    };
    const texts: string[] = [];
    for (const span of trace.spans) {
      const input = span.attributes['gen_ai.input.messages'];
      if (typeof input === 'string')
        for (const m of JSON.parse(input) as Array<{ role: string; content: string }>)
          if (m.role !== 'system') texts.push(m.content);
      const output = span.attributes['gen_ai.output'];
      if (typeof output === 'string' && !output.includes('tool.name')) texts.push(output);
    }
    expect(texts.length).toBeGreaterThanOrEqual(4);
    const all = transcriptText(events);
    for (const text of texts) expect(all).toContain(text);
    const list = messages(events);
    // The system prompt is the agent's configuration, not a message.
    expect(list.some((m) => m.kind === 'system' || m.from === 'system')).toBe(false);
    const started = events.find((e) => e.kind === 'session.started');
    expect(
      started?.kind === 'session.started' &&
        started.payload.fleet.agents.find((agent) => agent.name === 'any_agent')?.systemPrompt,
    ).toBe('Use the available tools to answer.');
    const user = list.find((m) => m.from === 'user');
    expect(user?.to).toBe('any_agent');
    expect(session.summary.task).toContain('America/New_York');
    const calls = events.flatMap((e) => (e.kind === 'tool.requested' ? [e.payload] : []));
    const results = events.flatMap((e) => (e.kind === 'tool.executed' ? [e.payload] : []));
    expect(calls.map((c) => c.name)).toEqual(['get_current_time', 'write_file']);
    expect(results.map((r) => [r.callId, r.name])).toEqual(calls.map((c) => [c.callId, c.name]));
    expect(results[0]?.result).toContain('"datetime": "2025-09-16T08:43:13-04:00"');
    // Span times give the timeline: the last answer is complete when its span ended (ns times).
    const final = list.at(-1);
    expect(final?.content).toContain('"steps"');
    const completedAt =
      events.find((e) => e.kind === 'message.completed' && e.payload.message.id === final?.id)?.t ?? 0;
    expect(completedAt).toBeCloseTo((1758026594435103000 - 1758026593209236000) / 1e6, 0);
    expect(final?.t).toBeCloseTo((1758026593773377000 - 1758026593209236000) / 1e6, 0);
    expect(session.summary.tokens).toBe(269 + 16 + 359 + 14 + 392 + 46);
    const view = foldEvents(events);
    expect(view.counters.unmapped?.spans ?? 0).toBe(0);
    // The cost attributes any-agent adds have no place in Fleetscope: kept and counted.
    expect(view.counters.unmapped?.attributes).toBeGreaterThan(0);
    const unmapped = events.flatMap((e) => (e.kind === 'span.unmapped' ? [e.payload] : []));
    expect(unmapped.some((u) => 'gen_ai.usage.input_cost' in u.attributes)).toBe(true);
  });

  it('the LangChain trace (any-agent) keeps every text, text answers and JSON answers alike', async () => {
    const { result, events } = await load('anyagent-langchain-genai-semconv-trace.json');
    expect(result.format).toBe('any-agent-trace');
    const trace = json('anyagent-langchain-genai-semconv-trace.json') as {
      spans: Array<{ attributes: Record<string, unknown> }>;
    };
    const all = transcriptText(events);
    let checked = 0;
    for (const span of trace.spans) {
      const output = span.attributes['gen_ai.output'];
      if (typeof output === 'string' && !output.includes('tool.name')) {
        expect(all).toContain(output);
        checked++;
      }
    }
    expect(checked).toBe(4);
    expect(all).toContain('Here are the steps I have taken:');
  });

  it('the OpenInference span dump keeps every message text, tool calls with their ids, the agent and the model', async () => {
    const { result, events, fleet } = await load('anyagent-openai-agents-openinference-spans.json');
    expect(result.format).toBe('otel-span-dump');
    expect(fleet.agents.map((agent) => agent.name)).toEqual(['any_agent']);
    expect(fleet.agents[0]?.provider?.model).toBe('gpt-4o');
    const spans = json('anyagent-openai-agents-openinference-spans.json') as Array<{
      attributes: Record<string, unknown>;
    }>;
    const all = transcriptText(events);
    let checked = 0;
    for (const span of spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        if (/^llm\.(input|output)_messages\.\d+\.message\.content$/.test(key) && typeof value === 'string') {
          expect(all).toContain(value);
          checked++;
        }
      }
      if (span.attributes['openinference.span.kind'] === 'TOOL') {
        expect(all).toContain(String(span.attributes['output.value']));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(8);
    const calls = events.flatMap((e) => (e.kind === 'tool.requested' ? [e.payload] : []));
    expect(calls.map((c) => [c.callId, c.name])).toEqual([
      ['call_Fbhr2GMJVJ0J8iJpeSNrHEAK', 'search_web'],
      ['call_zunplXJRxBCxCue8ywalkE5N', 'write_file'],
    ]);
    const results = events.flatMap((e) => (e.kind === 'tool.executed' ? [e.payload] : []));
    expect(results.map((r) => r.callId)).toEqual(calls.map((c) => c.callId));
    const list = messages(events);
    // The user's question once, though every model call repeats it.
    expect(list.filter((m) => m.from === 'user')).toHaveLength(1);
    expect(list.at(-1)).toMatchObject({ from: 'any_agent', to: 'user', kind: 'text' });
    // The MCP tool listing (a CHAIN span) and the workflow wrapper map to nothing: kept and counted.
    const view = foldEvents(events);
    expect(view.counters.unmapped?.spans).toBe(1);
  });
});
