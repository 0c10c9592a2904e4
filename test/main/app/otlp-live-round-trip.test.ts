import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet, Message, RunEvent } from '../../../src-shared/domain';
import { otlpEnvLines } from '../../../src-main/app';
import { openHistory } from '../../../src-main/history';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';
import { makeTempDir } from '../../helpers/temp-dir';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

let stub: OpenAiStub;
let receiver: RunningHost;
let temp: ReturnType<typeof makeTempDir>;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
afterEach(async () => {
  await receiver.stop();
  temp.remove();
});

function messagesOf(events: Iterable<RunEvent>): Message[] {
  return [...events].flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

function fleetOf(events: Iterable<RunEvent>): Fleet | null {
  for (const event of events) if (event.kind === 'session.started') return event.payload.fleet;
  return null;
}

/** Waits (without asserting on time) until the receiving Fleetscope holds `count` messages. */
async function receivedSession(count: number): Promise<{ id: string; events: RunEvent[] }> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const item = receiver.app.store.listSessions({}).items.find((session) => session.source === 'otlp');
    if (item) {
      const events = [...receiver.app.store.iterateEvents(item.id)];
      if (messagesOf(events).length >= count) return { id: item.id, events };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`The receiving Fleetscope never held ${count} messages.`);
}

const line = (message: Message) => `${message.from} > ${message.to} [${message.kind}] ${message.content}`;

describe('Fleetscope to Fleetscope over OTLP', () => {
  it('a run exported live with --otlp-endpoint arrives in a second Fleetscope with the same agents and messages', async () => {
    receiver = await startTestHost();
    temp = makeTempDir('fleetscope-round-trip-');
    // The two lines `fleetscope serve` prints, pasted into the sending shell.
    const pasted = otlpEnvLines(receiver.host.port, receiver.host.token);
    const env: NodeJS.ProcessEnv = { OPENAI_API_KEY: 'sk-round-trip-secret' };
    for (const text of pasted) {
      const [name, value] = text.split(/=(.*)/s) as [string, string];
      env[name] = value;
    }
    let call = 0;
    stub.respondWith((request) => {
      call++;
      if (call === 2)
        return {
          type: 'tools',
          calls: [{ id: 'call_mul', name: 'calculator', arguments: '{"expression":"6*7"}' }],
        };
      const system = JSON.stringify(request.body?.messages?.[0]?.content ?? '');
      return {
        type: 'text',
        content: `${system.includes('ann') ? 'Ann' : 'Bob'} says step ${call}.`,
        usage: { prompt: 9, completion: 4 },
      };
    });
    const fleetPath = join(temp.dir, 'fleet.json');
    writeFileSync(
      fleetPath,
      JSON.stringify({
        version: 1,
        name: 'math-pair',
        agents: [
          {
            name: 'ann',
            provider: { id: 'custom', model: 'stub-model', apiKeyEnv: 'OPENAI_API_KEY' },
            systemPrompt: 'You are ann.',
          },
          {
            name: 'bob',
            provider: { id: 'custom', model: 'stub-model', apiKeyEnv: 'OPENAI_API_KEY' },
            systemPrompt: 'You are bob.',
            tools: ['calculator'],
          },
        ],
        team: { pattern: 'round-robin' },
        termination: { type: 'max-messages', max: 7 },
      }),
    );
    const dataDir = join(temp.dir, 'sender');
    const io = captureIo(env);
    const code = await runCli(
      [
        'run',
        fleetPath,
        '--task',
        'Work out six times seven, then explain it.',
        '--data-dir',
        dataDir,
        '--base-url',
        stub.baseUrl,
        '--otlp-endpoint',
        env.OTEL_EXPORTER_OTLP_ENDPOINT as string,
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.stderr.at(-1)).toMatch(
      /^OTLP export: \d+ spans sent to http:\/\/127\.0\.0\.1:\d+\/v1\/traces\.$/,
    );

    const history = openHistory(dataDir, { recover: false });
    const sessionId = /^Session (ses_\S+) /.exec(io.stdout.at(-1) ?? '')?.[1] ?? '';
    const sent = [...history.store.iterateEvents(sessionId)];
    history.close();
    const original = messagesOf(sent);
    const received = await receivedSession(original.length);

    // The same agents.
    expect(fleetOf(received.events)?.agents.map((agent) => agent.name)).toEqual(
      fleetOf(sent)?.agents.map((agent) => agent.name),
    );
    const got = messagesOf(received.events);
    // The same messages, in the same order: every agent's words, sender, addressee and kind.
    const agentLines = (messages: Message[]) =>
      messages.filter((message) => message.from !== 'user' && message.kind !== 'tool').map(line);
    expect(agentLines(got)).toEqual(agentLines(original));
    // The task arrives as the person's words to the first agent.
    expect(got[0]).toMatchObject({ from: 'user', content: original[0]?.content });
    // The tool call and its result, paired by id.
    const call0 = original.find((message) => message.toolCalls?.length)?.toolCalls?.[0];
    expect(got.find((message) => message.toolCalls?.length)?.toolCalls?.[0]).toMatchObject({
      id: call0?.id,
      name: 'calculator',
    });
    const result = sent.find((event) => event.kind === 'tool.executed');
    const gotResult = received.events.find((event) => event.kind === 'tool.executed');
    expect(gotResult?.kind === 'tool.executed' && gotResult.payload).toMatchObject(
      result?.kind === 'tool.executed'
        ? { callId: result.payload.callId, result: result.payload.result }
        : {},
    );
    // Usage travels with each turn.
    expect(got.filter((message) => message.usage).map((message) => message.usage)).toEqual(
      original.filter((message) => message.usage && message.from !== 'user').map((message) => message.usage),
    );
    // Span times keep the pace: the gaps between agent turns are the same (to the millisecond).
    const gaps = (messages: Message[]) => {
      const turns = messages.filter((message) => message.from !== 'user' && message.kind !== 'tool');
      return turns.slice(1).map((message, index) => Math.round(message.t - (turns[index] as Message).t));
    };
    const expected = gaps(original);
    gaps(got).forEach((gap, index) =>
      expect(Math.abs(gap - (expected[index] as number))).toBeLessThanOrEqual(1),
    );
    // No key ever crosses over.
    expect(JSON.stringify(received.events)).not.toContain('sk-round-trip-secret');
  });

  it('a nested scripted fleet arrives with its agent ids, team, message kinds and stop reason, ended with the run', async () => {
    receiver = await startTestHost();
    temp = makeTempDir('fleetscope-round-trip-nested-');
    const env: NodeJS.ProcessEnv = {};
    for (const text of otlpEnvLines(receiver.host.port, receiver.host.token)) {
      const [name, value] = text.split(/=(.*)/s) as [string, string];
      env[name] = value;
    }
    const fleetPath = join(temp.dir, 'nested.json');
    writeFileSync(
      fleetPath,
      JSON.stringify({
        version: 1,
        name: 'nested research',
        agents: [
          { name: 'lead', type: 'scripted', script: [{ content: 'Please size the market.', kind: 'task' }] },
          {
            name: 'research',
            type: 'team',
            fleet: {
              version: 1,
              name: 'research team',
              agents: [
                { name: 'analyst', type: 'scripted', script: [{ content: 'About 40 teams, growing.' }] },
                {
                  name: 'critic',
                  type: 'scripted',
                  script: [{ content: 'Checked: 40 holds.', kind: 'feedback' }],
                },
              ],
              team: { pattern: 'sequential' },
            },
          },
          { name: 'editor', type: 'scripted', script: [{ content: 'Final: 40 teams.', kind: 'result' }] },
        ],
        team: { pattern: 'sequential' },
      }),
    );
    const dataDir = join(temp.dir, 'sender');
    const io = captureIo(env);
    const code = await runCli(
      [
        'run',
        fleetPath,
        '--task',
        'How big is the market?',
        '--data-dir',
        dataDir,
        '--otlp-endpoint',
        env.OTEL_EXPORTER_OTLP_ENDPOINT as string,
      ],
      io,
    );
    expect(code).toBe(0);
    const history = openHistory(dataDir, { recover: false });
    const sessionId = /^Session (ses_\S+) /.exec(io.stdout.at(-1) ?? '')?.[1] ?? '';
    const sentSummary = history.store.getSession(sessionId)?.summary;
    const sent = [...history.store.iterateEvents(sessionId)];
    history.close();
    expect(sentSummary?.status).toBe('completed');
    const original = messagesOf(sent);
    // The run went through the nested team.
    expect(original.some((message) => message.from === 'research/analyst')).toBe(true);

    // The receiver ends the session when the root span arrives, not after a quiet spell.
    let item = receiver.app.store.listSessions({}).items.find((session) => session.source === 'otlp');
    for (let attempt = 0; attempt < 400 && item?.status !== 'completed'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      item = receiver.app.store.listSessions({}).items.find((session) => session.source === 'otlp');
    }
    expect(item?.status).toBe('completed');
    expect(item?.stopReason).toBe(sentSummary?.stopReason);
    const received = [...receiver.app.store.iterateEvents(item?.id ?? '')];

    // The same fleet: the nested team and its agents, grouped as they were.
    const fleet = fleetOf(received);
    expect(fleet?.agents.map((agent) => agent.name)).toEqual(['lead', 'research', 'editor']);
    expect(fleet?.agents[1]?.type).toBe('team');
    expect(fleet?.agents[1]?.fleet?.agents.map((agent) => agent.name)).toEqual(['analyst', 'critic']);
    // The same messages: senders (nested ids with their slash), addressees, kinds and words.
    expect(messagesOf(received).map(line)).toEqual(original.map(line));
    const stopped = received.at(-1);
    expect(stopped?.kind === 'session.stopped' && stopped.payload).toMatchObject({
      status: 'completed',
      stopReason: sentSummary?.stopReason,
    });
  });
});
