import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '@shared/domain';
import { IngestService } from '../../../../src-main/interop/otlp-in/ingest-service';
import type { ImportInProgress, SessionWriter } from '../../../../src-main/history/ports';
import { openTempHistory } from '../../../helpers/temp-store';
import { BASE, json, span } from './span-builders';

const opened: Array<ReturnType<typeof openTempHistory>> = [];
afterEach(() => opened.splice(0).forEach((history) => history.cleanup()));

/** A real store in a temp folder, an ingest with a clock the test moves, and what it relayed. */
function setup(options: { holdMs?: number; quietMs?: number } = {}) {
  const history = openTempHistory();
  opened.push(history);
  let now = BASE + 60_000;
  const relayed = new Map<string, RunEvent[]>();
  const ingest = new IngestService({
    writer: history.store,
    onEvents: (id, events) => relayed.set(id, [...(relayed.get(id) ?? []), ...events]),
    now: () => now,
    tickMs: 0,
    holdMs: options.holdMs ?? 2_000,
    quietMs: options.quietMs ?? 30_000,
  });
  return {
    history,
    ingest,
    relayed,
    advance(ms: number) {
      now += ms;
      ingest.tick();
    },
    sessions: () => history.store.listSessions({}).items.filter((item) => item.source === 'otlp'),
    messages: (id: string) =>
      [...history.store.iterateEvents(id)].flatMap((e) =>
        e.kind === 'message.completed' ? [e.payload.message] : [],
      ),
  };
}

const output = (text: string) => json([{ role: 'assistant', parts: [{ type: 'text', content: text }] }]);
const chat = (
  id: number,
  parent: number | null,
  start: number,
  text: string,
  extra: Record<string, string> = {},
) =>
  span(id, parent, 'chat', start, start + 100, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.output.messages': output(text),
    ...extra,
  });

describe('live ingest', () => {
  // A model call of `agent`, in a process of its own (its resource).
  const said = (
    id: number,
    start: number,
    agent: string,
    input: string,
    answer: string,
    process = agent,
  ) => ({
    ...chat(id, null, start, answer, {
      'gen_ai.agent.name': agent,
      'gen_ai.conversation.id': 'two-processes',
      'gen_ai.input.messages': json([{ role: 'user', parts: [{ type: 'text', content: input }] }]),
    }),
    resource: { 'service.name': process },
  });
  const task = 'Which room is free on Friday afternoon for the review?';
  const a1 = 'Room 4 is free on Friday from two until six in the afternoon.';
  const b1 = 'Booked room 4 on Friday at two for the review, invitations sent.';

  it("takes an input no one said as the user's at once while the session has shown one process", () => {
    const { ingest, sessions, messages } = setup({ holdMs: 2_000 });
    // One process exports its spans in the order they end: a speaker before its hearer.
    ingest.receive({ spans: [said(1, 0, 'Alpha', task, a1, 'program')], rejected: [] });
    const id = sessions()[0]?.id ?? '';
    expect(messages(id).map((m) => `${m.from} -> ${m.to}: ${m.content}`)).toEqual([`user -> Alpha: ${task}`]);
  });

  it("waits for the speaker's export before taking an input as the user's once two processes were seen", () => {
    const { ingest, sessions, messages, advance } = setup({ holdMs: 2_000 });
    const earlier = 'Before anything else: is the review still on Friday?';
    // Alpha's process has exported before (an earlier exchange), so the session has two processes
    // once Beta's export arrives.
    ingest.receive({
      spans: [said(9, -5_000, 'Alpha', earlier, 'Yes, the review is on Friday.')],
      rejected: [],
    });
    // The hearer's export first; the speaker's comes one export interval later.
    ingest.receive({ spans: [said(2, 1_000, 'Beta', a1, b1)], rejected: [] });
    const [session] = sessions();
    const id = session?.id ?? '';
    const lines = () => messages(id).map((m) => `${m.from} -> ${m.to}: ${m.content}`);
    const ofThisExchange = () => lines().filter((line) => [task, a1, b1].some((text) => line.endsWith(text)));
    advance(1_500);
    expect(ofThisExchange()).toEqual([]);
    ingest.receive({ spans: [said(1, 0, 'Alpha', task, a1)], rejected: [] });
    advance(1_000);
    expect(ofThisExchange()).toEqual([]);
    // The task no one said is the user's once it has waited the hold; what waited behind it follows.
    advance(1_000);
    expect(lines().slice(-3)).toEqual([
      `user -> Alpha: ${task}`,
      `Alpha -> Beta: ${a1}`,
      `Beta -> user: ${b1}`,
    ]);
    expect(lines().filter((line) => line.endsWith(a1))).toHaveLength(1);
  });

  it('holds a model call until its agent span arrives, then names the agent from it', () => {
    const { ingest, sessions, messages, advance } = setup();
    ingest.receive({ spans: [chat(2, 1, 10, 'thinking aloud')], rejected: [] });
    expect(ingest.stats().spansWaiting).toBe(1);
    expect(sessions()).toHaveLength(0);
    ingest.receive({
      spans: [
        span(1, null, 'invoke_agent Scout', 0, 500, {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'Scout',
        }),
      ],
      rejected: [],
    });
    // An answer waits for an agent repeating it (its recipient) until the hold is over.
    advance(2_000);
    const [session] = sessions();
    expect(messages(session?.id ?? '').map((m) => m.from)).toEqual(['Scout']);
    expect(session).toMatchObject({ status: 'running', readOnly: true, fleetName: 'Scout' });
  });

  it('maps a span whose parent never comes once the hold is over (the service names the agent)', () => {
    const { ingest, sessions, messages, advance } = setup({ holdMs: 2_000 });
    const orphan = chat(2, 1, 10, 'alone');
    orphan.resource = { 'service.name': 'travel-bot' };
    ingest.receive({ spans: [orphan], rejected: [] });
    advance(1_000);
    expect(sessions()).toHaveLength(0);
    advance(1_500);
    expect(sessions()).toHaveLength(1);
    advance(2_000);
    expect(messages(sessions()[0]?.id ?? '').map((m) => [m.from, m.content])).toEqual([
      ['travel-bot', 'alone'],
    ]);
  });

  it('groups traces by conversation id, and otherwise keeps each trace a session of its own', () => {
    const { ingest, sessions, advance } = setup();
    const conv = { 'gen_ai.conversation.id': 'c-1', 'gen_ai.agent.name': 'a' };
    ingest.receive({
      spans: [
        chat(1, null, 0, 'first', conv),
        { ...chat(2, null, 1_000, 'second', conv), traceId: 'b'.repeat(32) },
        { ...chat(3, null, 2_000, 'alone', { 'gen_ai.agent.name': 'a' }), traceId: 'c'.repeat(32) },
      ],
      rejected: [],
    });
    advance(2_000);
    expect(
      sessions()
        .map((s) => s.messageCount)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('completes a one-trace session soon after its root span, a conversation over traces only after the quiet period', () => {
    const { ingest, sessions, advance } = setup({ quietMs: 30_000 });
    const root = (id: number, conversation: string, traceId: string) =>
      span(
        id,
        null,
        'workflow',
        0,
        1_000,
        { 'openinference.span.kind': 'CHAIN', 'session.id': conversation },
        { traceId },
      );
    const agent = (id: number, parent: number, conversation: string, traceId: string) =>
      span(
        id,
        parent,
        'invoke_agent Solo',
        10,
        900,
        { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'Solo', 'session.id': conversation },
        { traceId },
      );
    ingest.receive({ spans: [agent(2, 1, 'one-trace', 'a'), root(1, 'one-trace', 'a')], rejected: [] });
    ingest.receive({
      spans: [
        agent(12, 11, 'two-traces', 'b'),
        root(11, 'two-traces', 'b'),
        agent(22, 21, 'two-traces', 'c'),
        root(21, 'two-traces', 'c'),
      ],
      rejected: [],
    });
    advance(2_000);
    expect(sessions().map((session) => session.status)).toEqual(['running', 'running']);
    advance(1_000);
    expect(
      sessions()
        .map((session) => session.status)
        .sort(),
    ).toEqual(['completed', 'running']);
    const done = sessions().find((session) => session.status === 'completed');
    expect(done?.stopReason).toMatch(/root span ended and no spans came for 3 s/);
    advance(27_000);
    expect(sessions().map((session) => session.status)).toEqual(['completed', 'completed']);
  });

  it('the quiet period set in Settings decides when a one-trace session ends', () => {
    const { ingest, sessions, advance } = setup({ quietMs: 30_000 });
    ingest.setEndQuietMs(8_000);
    ingest.receive({
      spans: [
        span(2, 1, 'invoke_agent Solo', 10, 900, {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'Solo',
          'session.id': 'set-quiet',
        }),
        span(1, null, 'workflow', 0, 1_000, {
          'openinference.span.kind': 'CHAIN',
          'session.id': 'set-quiet',
        }),
      ],
      rejected: [],
    });
    advance(7_000);
    expect(sessions().map((session) => session.status)).toEqual(['running']);
    advance(1_000);
    expect(sessions()[0]).toMatchObject({
      status: 'completed',
      stopReason: expect.stringMatching(/for 8 s/),
    });
  });

  it('completes a session after the quiet period, and relays exactly what it stored', () => {
    const { ingest, history, sessions, relayed, advance } = setup({ quietMs: 30_000 });
    ingest.receive({ spans: [chat(1, null, 0, 'one', { 'gen_ai.agent.name': 'a' })], rejected: [] });
    advance(20_000);
    expect(sessions()[0]?.status).toBe('running');
    ingest.receive({ spans: [chat(2, null, 100, 'two', { 'gen_ai.agent.name': 'a' })], rejected: [] });
    advance(20_000);
    expect(sessions()[0]?.status).toBe('running');
    advance(11_000);
    const [session] = sessions();
    expect(session?.status).toBe('completed');
    expect(session?.stopReason).toMatch(/No spans arrived for 30 s/);
    const stored = [...history.store.iterateEvents(session?.id ?? '')];
    expect(relayed.get(session?.id ?? '')?.map((e) => [e.seq, e.kind])).toEqual(
      stored.map((e) => [e.seq, e.kind]),
    );
    expect(ingest.stats()).toMatchObject({ liveSessions: 0, sessionsStarted: 1, spansReceived: 2 });
  });

  it('spans with no agent meaning wait for their conversation to get one, and are counted when it never does', () => {
    const { ingest, sessions, advance } = setup({ holdMs: 0 });
    const http = span(5, null, 'GET /', 0, 10, {
      'http.request.method': 'GET',
      'gen_ai.conversation.id': 'c-9',
    });
    ingest.receive({ spans: [http], rejected: [] });
    expect(sessions()).toHaveLength(0);
    ingest.receive({
      spans: [chat(6, null, 20, 'hello', { 'gen_ai.conversation.id': 'c-9', 'gen_ai.agent.name': 'a' })],
      rejected: [],
    });
    expect(sessions()).toHaveLength(1);
    ingest.receive({
      spans: [
        { ...span(7, null, 'GET /other', 0, 10, { 'http.request.method': 'GET' }), traceId: 'd'.repeat(32) },
      ],
      rejected: [],
    });
    advance(11 * 60_000);
    expect(ingest.stats().spansOutsideSessions).toBe(1);
    expect(sessions()).toHaveLength(1);
  });

  it('a store failure reaches the caller (the receiver answers 503) and the half-written session is removed', () => {
    const history = openTempHistory();
    opened.push(history);
    let failNext = false;
    const writer: Pick<SessionWriter, 'beginImport'> = {
      beginImport(meta) {
        const real = history.store.beginImport(meta);
        const wrapped: ImportInProgress = {
          sessionId: real.sessionId,
          append: (events) => {
            if (failNext) throw new Error('disk full');
            real.append(events);
          },
          finish: () => real.finish(),
          abort: () => real.abort(),
        };
        return wrapped;
      },
    };
    const ingest = new IngestService({
      writer,
      onEvents: () => undefined,
      tickMs: 0,
      now: () => BASE + 60_000,
    });
    ingest.receive({ spans: [chat(1, null, 0, 'kept', { 'gen_ai.agent.name': 'a' })], rejected: [] });
    expect(history.store.listSessions({}).items).toHaveLength(1);
    failNext = true;
    expect(() =>
      ingest.receive({ spans: [chat(2, null, 100, 'lost', { 'gen_ai.agent.name': 'a' })], rejected: [] }),
    ).toThrow('disk full');
    expect(history.store.listSessions({}).items).toHaveLength(0);
    ingest.close();
  });
});

describe('secrets in traces', () => {
  it("masks the app's provider keys wherever a span carries them, in the session row too", () => {
    const history = openTempHistory();
    opened.push(history);
    const key = 'sk-live-0123456789abcdefghij';
    const relayed: RunEvent[] = [];
    const ingest = new IngestService({
      writer: history.store,
      onEvents: (_id, events) => relayed.push(...events),
      secrets: () => [key],
      tickMs: 0,
      now: () => BASE + 60_000,
    });
    ingest.receive({
      spans: [
        span(1, null, 'chat', 0, 100, {
          'gen_ai.operation.name': 'chat',
          'gen_ai.agent.name': 'leaky',
          'gen_ai.input.messages': json([
            { role: 'user', parts: [{ type: 'text', content: `use ${key} please` }] },
          ]),
          'gen_ai.output.messages': output(`I used ${key}`),
          'llm.invocation_parameters': json({ api_key: key }),
        }),
      ],
      rejected: [],
    });
    ingest.close();
    const [session] = history.store.listSessions({}).items;
    const stored = JSON.stringify([...history.store.iterateEvents(session?.id ?? '')]);
    expect(stored).not.toContain(key);
    expect(stored).toContain('I used [masked secret]');
    expect(JSON.stringify(relayed)).not.toContain(key);
    expect(session?.task).toBe('use [masked secret] please');
  });

  it('ends a session when a Fleetscope root span says how its run ended, with that status and reason', () => {
    const { ingest, sessions, messages, history } = setup();
    const conversation = { 'gen_ai.conversation.id': 'ses_sent' };
    ingest.receive({
      spans: [
        chat(2, 1, 10, 'the numbers', {
          ...conversation,
          'gen_ai.agent.name': 'research/analyst',
          'fleetscope.agent.id': 'research/analyst',
          'fleetscope.message.to': 'research/critic',
          'fleetscope.message.kind': 'result',
        }),
        // An id that is not an agent path is made a plain agent name, as any other tool's.
        chat(3, 1, 20, 'odd', {
          ...conversation,
          'fleetscope.agent.id': '../etc',
          'gen_ai.agent.name': 'x y',
        }),
      ],
      rejected: [],
    });
    expect(sessions()).toHaveLength(0);
    ingest.receive({
      spans: [
        span(1, null, 'invoke_agent crew', 0, 500, {
          ...conversation,
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'crew',
          'fleetscope.session.status': 'stopped',
          'fleetscope.session.stop_reason': 'Stopped by the person.',
          'fleetscope.session.end': true,
        }),
      ],
      rejected: [],
    });
    const [session] = sessions();
    // No quiet spell was waited for: the clock never moved.
    expect(session).toMatchObject({ status: 'stopped', stopReason: 'Stopped by the person.' });
    expect(messages(session?.id ?? '').map((m) => `${m.from}>${m.to} [${m.kind}]`)).toEqual([
      'research/analyst>research/critic [result]',
      'x_y>user [text]',
    ]);
    const events = [...history.store.iterateEvents(session?.id ?? '')];
    expect(events.filter((e) => e.kind === 'session.stopped')).toHaveLength(1);
    // No fleet was sent: the one inferred keeps the team path as a team agent with its members.
    const started = events[0]?.kind === 'session.started' ? events[0].payload.fleet : null;
    expect(started?.agents.map((agent) => agent.name)).toEqual(['research', 'x_y']);
    expect(started?.agents[0]).toMatchObject({ type: 'team', fleet: { agents: [{ name: 'analyst' }] } });
  });

  it('a root span that reports a run still going does not end the session', () => {
    const { ingest, sessions } = setup();
    ingest.receive({
      spans: [
        chat(2, 1, 10, 'hello', { 'gen_ai.conversation.id': 'ses_live', 'gen_ai.agent.name': 'ann' }),
        span(1, null, 'invoke_agent crew', 0, 500, {
          'gen_ai.conversation.id': 'ses_live',
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'crew',
          'fleetscope.session.status': 'running',
          'fleetscope.session.end': true,
        }),
      ],
      rejected: [],
    });
    expect(sessions()[0]?.status).toBe('running');
  });
});
