import { afterEach, describe, expect, it } from 'vitest';
import type { Delivered } from '@shared/contract';
import { foldEvents, type Message, type RunEvent } from '@shared/domain';
import { startTestHost, type RunningHost } from '../../helpers/web-host';
import { makeSender, type Protocol } from '../interop/otlp-in/otel-sdk';

let running: RunningHost | null = null;
afterEach(async () => {
  await running?.stop();
  running = null;
});

const json = (value: unknown) => JSON.stringify(value);

function sessionEvents(host: RunningHost, id: string): RunEvent[] {
  return [...host.app.store.iterateEvents(id)];
}

function messagesOf(events: RunEvent[]): Message[] {
  return events.flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

function traceSessions(host: RunningHost) {
  return host.app.store.listSessions({}).items.filter((item) => item.source === 'otlp');
}

/**
 * A planner agent (GenAI conventions, structured messages) that calls a tool, delegates to a
 * researcher agent, and answers; an HTTP client span under its first model call maps to nothing.
 */
function sendPlannerRun(sender: ReturnType<typeof makeSender>, base: number): void {
  const root = sender.open({
    name: 'invoke_agent Planner',
    start: base,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Planner',
      'gen_ai.conversation.id': 'conv-lisbon',
    },
  });
  const firstCall = sender.span(
    {
      name: 'chat gpt-4o-mini',
      start: base + 100,
      end: base + 1_100,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.request.temperature': 0.2,
        'gen_ai.system_instructions': json([{ type: 'text', content: 'You plan trips.' }]),
        'gen_ai.input.messages': json([
          { role: 'user', parts: [{ type: 'text', content: 'Plan a day in Lisbon' }] },
        ]),
        'gen_ai.output.messages': json([
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 'call_weather', name: 'get_weather', arguments: { city: 'Lisbon' } },
            ],
            finish_reason: 'tool_call',
          },
        ]),
        'gen_ai.usage.input_tokens': 50,
        'gen_ai.usage.output_tokens': 10,
      },
    },
    root,
  );
  sender.span(
    {
      name: 'POST /v1/chat/completions',
      start: base + 120,
      end: base + 1_050,
      attributes: { 'http.request.method': 'POST', 'server.address': 'api.openai.com' },
    },
    firstCall,
  );
  sender.span(
    {
      name: 'execute_tool get_weather',
      start: base + 1_200,
      end: base + 1_400,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call_weather',
        'gen_ai.tool.call.arguments': json({ city: 'Lisbon' }),
        'gen_ai.tool.call.result': 'Sunny, 24 C',
      },
    },
    root,
  );
  const researcher = sender.open(
    {
      name: 'invoke_agent Researcher',
      start: base + 1_500,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Researcher' },
    },
    root,
  );
  sender.span(
    {
      name: 'chat gpt-4o-mini',
      start: base + 1_600,
      end: base + 3_000,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.input.messages': json([
          { role: 'user', parts: [{ type: 'text', content: 'Find three sights in Lisbon' }] },
        ]),
        'gen_ai.output.messages': json([
          {
            role: 'assistant',
            parts: [{ type: 'text', content: 'Belém Tower, Alfama, LX Factory' }],
            finish_reason: 'stop',
          },
        ]),
      },
    },
    researcher,
  );
  researcher.end(base + 3_100);
  sender.span(
    {
      name: 'chat gpt-4o-mini',
      start: base + 3_600,
      end: base + 4_800,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.input.messages': json([
          { role: 'user', parts: [{ type: 'text', content: 'Plan a day in Lisbon' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 'call_weather', name: 'get_weather', arguments: { city: 'Lisbon' } },
            ],
          },
          {
            role: 'tool',
            parts: [{ type: 'tool_call_response', id: 'call_weather', response: 'Sunny, 24 C' }],
          },
        ]),
        'gen_ai.output.messages': json([
          {
            role: 'assistant',
            parts: [
              { type: 'text', content: 'Morning at Belém Tower, lunch in Alfama, sunset at LX Factory.' },
            ],
            finish_reason: 'stop',
          },
        ]),
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 30,
      },
    },
    root,
  );
  root.end(base + 5_000);
}

describe.each<Protocol>(['protobuf', 'json'])(
  'the OTLP receiver with the real SDK exporter (%s)',
  (protocol) => {
    it('turns a traced agent run into a session with its agents, messages, tool round trip and timing', async () => {
      running = await startTestHost();
      const { host } = running;
      const sender = makeSender({
        protocol,
        endpoint: `http://127.0.0.1:${host.port}`,
        headers: { 'x-fleetscope-token': host.token },
      });
      const base = Date.now() - 60_000;
      sendPlannerRun(sender, base);
      await sender.flush();
      await sender.shutdown();

      const sessions = traceSessions(running);
      expect(sessions).toHaveLength(1);
      const summary = sessions[0];
      if (!summary) throw new Error('no session');
      expect(summary).toMatchObject({
        fleetName: 'Planner',
        task: 'Plan a day in Lisbon',
        readOnly: true,
        status: 'running',
      });
      expect(summary.createdAt).toBe(Math.round(base));

      running.app.traces.ingest.flush();
      const events = sessionEvents(running, summary.id);
      const messages = messagesOf(events);
      // The system prompt is the agent's configuration, not a message.
      expect(messages.map((m) => [m.from, m.to, m.kind, m.content])).toEqual([
        ['user', 'Planner', 'text', 'Plan a day in Lisbon'],
        ['Planner', 'Planner', 'function', ''],
        ['Planner', 'Planner', 'tool', 'Sunny, 24 C'],
        // Researcher runs inside Planner's span: a member of Planner's nested team.
        ['Planner', 'Planner/Researcher', 'text', 'Find three sights in Lisbon'],
        ['Planner/Researcher', 'Planner', 'text', 'Belém Tower, Alfama, LX Factory'],
        ['Planner', 'user', 'text', 'Morning at Belém Tower, lunch in Alfama, sunset at LX Factory.'],
      ]);
      expect(messages[1]?.toolCalls).toEqual([
        { id: 'call_weather', name: 'get_weather', arguments: json({ city: 'Lisbon' }) },
      ]);
      expect(messages[2]?.toolResults).toEqual([
        { callId: 'call_weather', name: 'get_weather', content: 'Sunny, 24 C', isError: false },
      ]);
      // Span times are the timeline: each message starts when its span started, except an answer
      // held until its addressee is known (here until the trace ended, at 4.8 s): the log's times
      // never go back, so it is written at the time it was released.
      expect(messages.map((m) => Math.round(m.t))).toEqual([100, 100, 1_200, 1_600, 4_800, 4_800]);
      const completedAt = events.find(
        (e) => e.kind === 'message.completed' && e.payload.message.content.startsWith('Morning'),
      )?.t;
      expect(Math.round(completedAt ?? 0)).toBe(4_800);
      expect(messages[1]?.usage).toEqual({
        prompt: 50,
        completion: 10,
        model: 'gpt-4o-mini',
        // The span's provider: Settings' price overrides are per provider.
        provider: 'openai',
        durationMs: 1_000,
        cost: expect.any(Number),
      });

      const stored = running.app.store.getSession(summary.id);
      expect(stored?.summary).toMatchObject({ status: 'completed', tokens: 210, messageCount: 6 });
      const started = events[0];
      expect(
        started?.kind === 'session.started' &&
          started.payload.fleet.agents.map((a) => [
            a.name,
            a.type,
            a.provider?.model,
            a.fleet?.agents.map((member) => [member.name, member.provider?.model]),
          ]),
      ).toEqual([['Planner', 'team', 'gpt-4o-mini', [['Researcher', 'gpt-4o-mini']]]]);
      // The HTTP span and the request temperature have no place in a session: kept and counted.
      const view = foldEvents(events);
      expect(view.counters.unmapped?.spans).toBe(1);
      const kept = events.flatMap((e) => (e.kind === 'span.unmapped' ? [e.payload] : []));
      expect(kept.find((k) => !k.partly)?.attributes).toMatchObject({ 'server.address': 'api.openai.com' });
      expect(kept.some((k) => k.attributes['gen_ai.request.temperature'] === 0.2)).toBe(true);
    });
  },
);

describe('live sessions from the OTLP receiver', () => {
  it('appear while spans arrive, grow with each export (relayed as run.events), and complete when flushed', async () => {
    running = await startTestHost();
    const { app, host } = running;
    const relayed: Delivered[] = [];
    app.hub.onDidEmit((event) => relayed.push(event));
    const sender = makeSender({
      protocol: 'protobuf',
      endpoint: `http://127.0.0.1:${host.port}`,
      headers: { 'x-fleetscope-token': host.token },
    });
    const base = Date.now() - 30_000;
    const turn = (agent: string, start: number, text: string) => ({
      name: `chat ${agent}`,
      start,
      end: start + 500,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.agent.name': agent,
        'gen_ai.conversation.id': 'conv-live',
        'gen_ai.output.messages': json([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]),
      },
    });
    sender.span(turn('writer', base, 'A first draft.'));
    await sender.flush();
    const [first] = traceSessions(running);
    expect(first?.status).toBe('running');
    // An answer nobody has repeated yet is held (its addressee is not known until then); its
    // agent is already there, busy.
    expect(sessionEvents(running, first?.id ?? '').some((e) => e.agent === 'writer')).toBe(true);

    sender.span(turn('critic', base + 1_000, 'Too long.'));
    sender.span(turn('writer', base + 2_000, 'A shorter draft.'));
    await sender.flush();
    await sender.shutdown();
    expect(traceSessions(running)).toHaveLength(1);
    app.traces.ingest.flush('done');
    expect(app.store.getSession(first?.id ?? '')?.summary.status).toBe('completed');
    const events = sessionEvents(running, first?.id ?? '');
    expect(messagesOf(events).map((m) => `${m.from}: ${m.content}`)).toEqual([
      'writer: A first draft.',
      'critic: Too long.',
      'writer: A shorter draft.',
    ]);
    // Every stored event reached the hub as run.events for that session, in order.
    const relayedEvents = relayed.flatMap((event) =>
      event.channel === 'run.events' && event.payload.sessionId === first?.id ? event.payload.events : [],
    );
    expect(relayedEvents.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
  });

  it('the two lines `fleetscope serve` prints are all a standard exporter needs', async () => {
    running = await startTestHost();
    const status = await running.app.call('traces.receiver', {});
    expect(status).toMatchObject({
      mode: 'web-host',
      enabled: true,
      listening: true,
      port: running.host.port,
    });
    expect(status.envLines).toEqual([
      `OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${running.host.port}`,
      `OTEL_EXPORTER_OTLP_HEADERS=x-fleetscope-token=${encodeURIComponent(running.host.token)}`,
    ]);
    const saved = {
      endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
      headers: process.env.OTEL_EXPORTER_OTLP_HEADERS,
    };
    for (const line of status.envLines) {
      const [name, ...value] = line.split('=');
      process.env[name as string] = value.join('=');
    }
    try {
      const sender = makeSender({ protocol: 'json' });
      sender.span({
        name: 'openai.chat',
        start: Date.now() - 2_000,
        end: Date.now() - 1_000,
        attributes: {
          'llm.request.type': 'chat',
          'gen_ai.system': 'openai',
          'gen_ai.request.model': 'gpt-4o',
          'gen_ai.prompt.0.role': 'user',
          'gen_ai.prompt.0.content': 'Say hello',
          'gen_ai.completion.0.role': 'assistant',
          'gen_ai.completion.0.content': 'Hello!',
        },
      });
      await sender.flush();
      await sender.shutdown();
    } finally {
      if (saved.endpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved.endpoint;
      if (saved.headers === undefined) delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
      else process.env.OTEL_EXPORTER_OTLP_HEADERS = saved.headers;
    }
    running.app.traces.ingest.flush();
    const [session] = traceSessions(running);
    const messages = messagesOf(sessionEvents(running, session?.id ?? ''));
    // No agent span: the service's name names the agent.
    expect(messages.map((m) => [m.from, m.to, m.content])).toEqual([
      ['user', 'otel-test', 'Say hello'],
      ['otel-test', 'user', 'Hello!'],
    ]);
  });
});

describe('turning the receiver off under fleetscope serve', () => {
  it('answers 404 while off, stores nothing, and receives again once on', async () => {
    running = await startTestHost();
    const { app, host } = running;
    const send = async () => {
      const sender = makeSender({
        protocol: 'json',
        endpoint: `http://127.0.0.1:${host.port}`,
        headers: { 'x-fleetscope-token': host.token },
      });
      sender.span({
        name: 'chat',
        start: Date.now() - 2_000,
        end: Date.now() - 1_000,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.agent.name': 'toggled',
          'gen_ai.output.messages': json([{ role: 'assistant', parts: [{ type: 'text', content: 'here' }] }]),
        },
      });
      try {
        await sender.flush();
        return null;
      } catch (error) {
        // The provider's flush rejects with the processors' errors.
        return (Array.isArray(error) ? error[0] : error) as { code?: number };
      } finally {
        await sender.shutdown().catch(() => undefined);
      }
    };
    expect(await app.call('traces.configure', { enabled: false })).toMatchObject({
      enabled: false,
      listening: false,
      envLines: [],
    });
    const refused = await fetch(`http://127.0.0.1:${host.port}/v1/traces`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-fleetscope-token': host.token },
      body: '{}',
    });
    expect(refused.status).toBe(404);
    // The SDK's exporter sees the refusal (404 is not retried).
    expect(await send()).toMatchObject({ code: 404 });
    expect(traceSessions(running)).toHaveLength(0);
    expect((await app.call('traces.configure', { enabled: true })).listening).toBe(true);
    expect(await send()).toBeNull();
    expect(traceSessions(running)).toHaveLength(1);
  });
});
