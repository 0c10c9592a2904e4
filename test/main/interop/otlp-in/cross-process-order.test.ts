import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../../src-shared/domain';
import { otlpEnvLines } from '../../../../src-main/app';
import { startOpenAiStub, type OpenAiStub } from '../../../helpers/openai-stub';
import { startOtlpCollector } from '../../../helpers/otlp-collector';
import { startTestHost, type RunningHost } from '../../../helpers/web-host';
import { shapeResponder } from './shape-programs';
import { messagesInLogOrder } from './span-builders';

/**
 * Speaker and hearer in two processes, each exporting its own spans: the hearer's export reaching
 * Fleetscope first must not make the speaker's words the user's (and then, when the speaker's
 * export comes, a second copy of them). Each sentence once, from its speaker, in the order said.
 */
const root = join(import.meta.dirname, '../../../..');
const CHILD = join(root, 'test/helpers/traced-agent-child.mjs');
const TASK = 'Cross-process task: find a date for the team dinner in June.';
const EARLIER = 'Cross-process warm-up: is the whole team in town during June?';

let stub: OpenAiStub;
let receiver: RunningHost;
beforeAll(async () => {
  stub = await startOpenAiStub();
  const respond = shapeResponder();
  stub.respondWith((request) => respond(request.body ?? {}));
  receiver = await startTestHost();
});
afterAll(async () => {
  await receiver?.stop();
  await stub?.close();
});

interface AgentProcess {
  /** What the agent's model answered. */
  said: Promise<string>;
  /** Lets the process send its spans (one export) and waits for it to exit. */
  send(): Promise<void>;
}

/** One agent in a process of its own (`traced-agent-child.mjs`), exporting to `endpoint`. */
function agentProcess(
  otlp: Record<string, string>,
  agent: string,
  conversation: string,
  heard: string,
  from?: string,
): AgentProcess {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, OPENAI_BASE_URL: stub.baseUrl, ...otlp };
  const args = [CHILD, agent, conversation, heard, ...(from ? [from] : [])];
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const said = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('said ')) resolve(JSON.parse(line.slice(5)) as string);
    });
    void exited.then((code) => reject(new Error(`${agent} exited (${code}) before answering: ${stderr}`)));
  });
  return {
    said,
    async send() {
      child.stdin.end('send\n');
      expect(await exited).toBe(0);
      expect(stderr).toBe('');
    },
  };
}

/** The receiver's OTLP environment, as `fleetscope serve` prints it. */
function receiverEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const text of otlpEnvLines(receiver.host.port, receiver.host.token)) {
    const [name, value] = text.split(/=(.*)/s) as [string, string];
    env[name] = value;
  }
  return env;
}

/** Alpha hears the task and answers; Beta, in another process, hears Alpha's answer and answers. */
async function converse(
  otlp: Record<string, string>,
  conversation: string,
  hints: boolean,
): Promise<{ alpha: AgentProcess; beta: AgentProcess; a1: string; b1: string }> {
  const alpha = agentProcess(otlp, 'Alpha', conversation, TASK, hints ? 'user' : undefined);
  const a1 = await alpha.said;
  const beta = agentProcess(otlp, 'Beta', conversation, a1, hints ? 'Alpha' : undefined);
  const b1 = await beta.said;
  return { alpha, beta, a1, b1 };
}

/** Messages in the order the log started them (the transcript's order), as "from -> to: text". */
function transcript(events: RunEvent[]): string[] {
  return messagesInLogOrder(events).map((m) => `${m.from} -> ${m.to}: ${m.content}`);
}

/** Waits (without asserting on time) until a trace session not in `before` has `count` messages. */
async function messagesArrived(before: Set<string>, count: number): Promise<RunEvent[]> {
  let events: RunEvent[] = [];
  for (let attempt = 0; attempt < 1_200; attempt++) {
    const session = receiver.app.store
      .listSessions({})
      .items.find((item) => item.source === 'otlp' && !before.has(item.id));
    events = session ? [...receiver.app.store.iterateEvents(session.id)] : [];
    if (events.filter((event) => event.kind === 'message.completed').length >= count) return events;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return events;
}

const sessionIds = () => new Set(receiver.app.store.listSessions({}).items.map((item) => item.id));

describe('two processes exporting their own spans, the hearer’s export first', () => {
  it.each([
    ["no sender hints, the speaker's process seen before", false],
    ['graph.node.parent_id naming the speaker', true],
  ])(
    'live (%s): each sentence once, from its speaker, the edge drawn, the task from the user',
    async (_label, hints) => {
      const before = sessionIds();
      const otlp = receiverEnv();
      const conversation = `dinner-${String(hints)}`;
      // Without hints, Alpha's process has exported an earlier exchange, so the session has shown
      // two processes when Beta's export comes. (Before a second process or a hint is seen, an
      // input no one said is the user's at once, so a one-process session is never held back: see
      // TranscriptState.processes.)
      const earlier: string[] = [];
      if (!hints) {
        const warmUp = agentProcess(otlp, 'Alpha', conversation, EARLIER);
        const p0 = await warmUp.said;
        await warmUp.send();
        await messagesArrived(before, 1);
        earlier.push(`user -> Alpha: ${EARLIER}`, `Alpha -> user: ${p0}`);
      }
      const { alpha, beta, a1, b1 } = await converse(otlp, conversation, hints);
      // Beta's export reaches the receiver while Alpha's spans are still in Alpha's process.
      await beta.send();
      expect(receiver.app.traces.ingest.stats().spansReceived).toBeGreaterThanOrEqual(2);
      await alpha.send();
      const expected = [...earlier, `user -> Alpha: ${TASK}`, `Alpha -> Beta: ${a1}`, `Beta -> user: ${b1}`];
      const live = await messagesArrived(before, expected.length);
      expect(transcript(live)).toEqual(expected);
      // Nothing more comes when the session ends: no second copy of anyone's words.
      receiver.app.traces.ingest.flush();
      const stored = await messagesArrived(before, expected.length);
      expect(stored.at(-1)?.kind).toBe('session.stopped');
      expect(transcript(stored)).toEqual(expected);
      const sessionId = stored[0]?.sessionId ?? '';
      const graph = await receiver.app.call('sessions.edges', { id: sessionId });
      expect(graph.edges.map((edge) => `${edge.from} -> ${edge.to} ${edge.count}`).sort()).toEqual(
        hints
          ? ['Alpha -> Beta 1', 'Beta -> user 1', 'user -> Alpha 1']
          : ['Alpha -> Beta 1', 'Alpha -> user 1', 'Beta -> user 1', 'user -> Alpha 2'],
      );
    },
    60_000,
  );

  it('imported from a collector file holding the two exports, the hearer’s first: the same conversation', async () => {
    const collector = await startOtlpCollector();
    try {
      const otlp = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint };
      const { alpha, beta, a1, b1 } = await converse(otlp, 'dinner-file', false);
      await beta.send();
      await alpha.send();
      // One ExportTraceServiceRequest a line, in the order they arrived: Beta's, then Alpha's.
      const lines = collector.requests.map((request) => JSON.stringify(request.body));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain('Beta');
      const result = await receiver.app.call('sessions.importData', {
        fileName: 'dinner.jsonl',
        content: `${lines.join('\n')}\n`,
      });
      expect(result.format).toBe('otlp-json');
      const events = [...receiver.app.store.iterateEvents(result.sessionId)];
      expect(transcript(events)).toEqual([
        `user -> Alpha: ${TASK}`,
        `Alpha -> Beta: ${a1}`,
        `Beta -> user: ${b1}`,
      ]);
    } finally {
      await collector.close();
    }
  });
});
