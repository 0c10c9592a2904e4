import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message, RunEvent } from '../../../src-shared/domain';
import { otlpEnvLines } from '../../../src-main/app';
import { callChecked } from '../../helpers/checked-dispatch';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

const root = join(import.meta.dirname, '../../..');
const EXAMPLE = join(root, 'examples/otel/agents-talk.mjs');

let stubProcess: ChildProcess;
let stubBaseUrl: string;
let receiver: RunningHost;

/** Starts `npm run stub`'s script on a free port and reads the base URL it prints. */
async function startStubScript(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(process.execPath, [join(root, 'scripts/stub-model-server.mjs'), '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /^OPENAI_BASE_URL=(\S+)$/m.exec(output)?.[1];
      if (found) resolve(found);
    });
    child.on('exit', (code) => reject(new Error(`the stub script exited (${code}): ${output}`)));
  });
  return { child, baseUrl };
}

function run(
  command: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, command, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function messagesOf(events: RunEvent[]): Message[] {
  return events.flatMap((event) => (event.kind === 'message.completed' ? [event.payload.message] : []));
}

beforeAll(async () => {
  const stub = await startStubScript();
  stubProcess = stub.child;
  stubBaseUrl = stub.baseUrl;
  receiver = await startTestHost();
});
afterAll(async () => {
  stubProcess.kill('SIGTERM');
  await receiver.stop();
});

/** Waits (without asserting on time) until the receiver holds a trace session passing `ready`. */
async function receivedSession(ready: (messages: Message[]) => boolean): Promise<RunEvent[]> {
  let last: RunEvent[] = [];
  for (let attempt = 0; attempt < 400; attempt++) {
    const item = receiver.app.store.listSessions({}).items.find((session) => session.source === 'otlp');
    if (item) {
      last = [...receiver.app.store.iterateEvents(item.id)];
      if (ready(messagesOf(last))) return last;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return last;
}

/** Waits (without asserting on time) until the trace session is no longer running. */
async function completedSession() {
  const find = () => receiver.app.store.listSessions({}).items.find((session) => session.source === 'otlp');
  for (let attempt = 0; attempt < 800 && find()?.status === 'running'; attempt++)
    await new Promise((resolve) => setTimeout(resolve, 25));
  return find();
}

describe('examples/otel: three agents traced by OpenInference, sent with the standard OTLP exporter', () => {
  it('run against the `npm run stub` server, its agents and every message appear in a running Fleetscope', async () => {
    // Exactly what a newcomer does: paste the two lines `fleetscope serve` prints, point the
    // openai SDK at the stub, run the example. No API key is set.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, OPENAI_BASE_URL: stubBaseUrl };
    for (const text of otlpEnvLines(receiver.host.port, receiver.host.token)) {
      const [name, value] = text.split(/=(.*)/s) as [string, string];
      env[name] = value;
    }
    const result = await run([EXAMPLE, 'Plan a picnic for the team.'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const said = result.stdout.split('\n').flatMap((line) => {
      const match = /^(Planner|Critic|Writer): (.+)$/.exec(line);
      return match ? [{ agent: match[1] as string, text: match[2] as string }] : [];
    });
    expect(said).toHaveLength(6);
    expect(said.map((turn) => turn.agent)).toEqual([
      'Planner',
      'Critic',
      'Writer',
      'Planner',
      'Critic',
      'Writer',
    ]);

    const isThere = (messages: Message[]) =>
      said.every((turn) =>
        messages.some((message) => message.from === turn.agent && message.content === turn.text),
      ) && messages.length === said.length + 1;
    const events = await receivedSession(isThere);
    const messages = messagesOf(events);
    expect(isThere(messages)).toBe(true);
    const started = events.find((event) => event.kind === 'session.started');
    expect(
      started?.kind === 'session.started' && started.payload.fleet.agents.map((agent) => agent.name),
    ).toEqual(['Planner', 'Critic', 'Writer']);
    expect(messages).toContainEqual(
      expect.objectContaining({ from: 'user', to: 'Planner', content: 'Plan a picnic for the team.' }),
    );
    // Each agent's words come once, in the order they were said, at the pace of the spans.
    const turns = messages.filter((message) => said.some((turn) => turn.agent === message.from));
    expect(turns.map((message) => message.content)).toEqual(said.map((turn) => turn.text));
    for (const [index, message] of turns.slice(1).entries())
      expect(message.t).toBeGreaterThanOrEqual((turns[index] as Message).t);
    // Who said what to whom: each turn goes to the agent that heard it next; the last to the user.
    expect(messages.map((message) => `${message.from} -> ${message.to}`)).toEqual([
      'user -> Planner',
      'Planner -> Critic',
      'Critic -> Writer',
      'Writer -> Planner',
      'Planner -> Critic',
      'Critic -> Writer',
      'Writer -> user',
    ]);
    // System prompts are the agents' configuration, not messages.
    expect(
      started?.kind === 'session.started' && started.payload.fleet.agents.map((agent) => agent.systemPrompt),
    ).toEqual([
      'You are Planner. Propose concrete next steps in two sentences.',
      'You are Critic. Point out the biggest risk in what you were told, briefly.',
      'You are Writer. Turn what you were told into one clear sentence for the team.',
    ]);
    // The program has ended: the session completes once no span came for the quiet period.
    const session = await completedSession();
    expect(session?.status).toBe('completed');
    expect(session?.stopReason).toMatch(/root span ended/);
    // What the header counts as unmapped is listed, each with its span's name and why.
    const unmapped = await callChecked(
      receiver.app.dispatcher,
      'sessions.unmapped',
      { id: session?.id },
      { surface: 'cli' },
    );
    const counted = events.filter((event) => event.kind === 'span.unmapped').length;
    expect(unmapped.total).toBeGreaterThan(0);
    expect(unmapped.items).toHaveLength(unmapped.total);
    expect(unmapped.total).toBeGreaterThanOrEqual(counted);
    expect(unmapped.items.map((item) => item.name)).toContain('resource');
    for (const item of unmapped.items) expect(item.why).not.toBe('');
    // The raw view: each model call as it was made, with every message its model was sent.
    const raw = await callChecked(
      receiver.app.dispatcher,
      'sessions.modelCalls',
      { id: session?.id },
      { surface: 'cli' },
    );
    expect(raw.total).toBe(6);
    expect(raw.nextOffset).toBeNull();
    expect(raw.calls.map((call) => call.agent)).toEqual(said.map((turn) => turn.agent));
    expect(raw.calls.map((call) => call.outputs.map((output) => output.text))).toEqual(
      said.map((turn) => [turn.text]),
    );
    const plannerAgain = raw.calls[3];
    expect(plannerAgain?.inputs).toEqual([
      { role: 'system', text: 'You are Planner. Propose concrete next steps in two sentences.' },
      // OpenInference records no `name` on input messages: the raw view shows what the trace holds.
      { role: 'user', text: said[2]?.text },
    ]);
    expect(plannerAgain?.sentAgain).toBe(1);
    expect(plannerAgain?.usage?.prompt).toBeGreaterThan(0);
    expect(plannerAgain?.model).toBeTruthy();
    // The log keeps what was sent again as a count: the system prompt is stored once per agent.
    const stored = events.filter((event) => event.kind === 'model.call');
    const systemCopies = stored.flatMap((event) =>
      event.kind === 'model.call' ? event.payload.inputs.filter((input) => input.role === 'system') : [],
    );
    expect(systemCopies).toHaveLength(3);
  });
});
