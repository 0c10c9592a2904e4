import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRunCommand } from '../../../src-main/cli/commands/run';
import { runCli } from '../../../src-main/cli/main';
import { openHistory } from '../../../src-main/history';
import { captureIo } from '../../helpers/cli-io';
import { startOpenAiStub, type OpenAiStub } from '../../helpers/openai-stub';

const fleets = join(import.meta.dirname, '../../../resources/fleets');
const EXAMPLES = ['debate', 'code-review', 'support-swarm', 'research-fanout'];

let stub: OpenAiStub;
let dataDir: string;
beforeAll(async () => {
  stub = await startOpenAiStub();
});
afterAll(() => stub.close());
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'fleetscope-run-'));
  stub.requests.length = 0;
  stub.respondWith(null);
});

function writeFleet(value: unknown): string {
  const path = join(dataDir, 'fleet.json');
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

const scriptedPair = {
  version: 1,
  name: 'pair',
  agents: [
    { name: 'ann', type: 'scripted', script: [{ content: 'hello there' }], loop: true },
    { name: 'bob', type: 'scripted', script: [{ content: 'hi ann' }], loop: true },
  ],
  team: { pattern: 'round-robin' },
  termination: { type: 'max-messages', max: 5 },
};

describe('fleetscope run', () => {
  it.each(EXAMPLES)(
    'runs the scripted %s example with no API key (exit 0) and stores its events',
    async (name) => {
      const io = captureIo({});
      const code = await runCli(
        ['run', join(fleets, 'scripted', `${name}.json`), '--task', 'Go', '--data-dir', dataDir],
        io,
      );
      expect(io.stderr.join('\n')).toBe('');
      expect(code).toBe(0);
      const summary = io.stdout.at(-1) ?? '';
      expect(summary).toMatch(
        /^Session ses_\S+ completed: [A-Z][^.]+( \(.+\))?\. \d+ messages, \d+ tokens\.$/,
      );
      const sessionId = /^Session (ses_\S+) /.exec(summary)?.[1] ?? '';
      const history = openHistory(dataDir, { recover: false });
      try {
        const events = [...history.store.iterateEvents(sessionId)];
        expect(events[0]?.kind).toBe('session.started');
        expect(events.at(-1)?.kind).toBe('session.stopped');
        expect(history.store.getSession(sessionId)?.summary.status).toBe('completed');
      } finally {
        history.close();
      }
    },
  );

  it.each(EXAMPLES)('runs the OpenAI %s example against a local server with --base-url', async (name) => {
    const io = captureIo({ OPENAI_API_KEY: 'sk-local-test' });
    const code = await runCli(
      [
        'run',
        join(fleets, 'openai', `${name}.json`),
        '--task',
        'Go',
        '--data-dir',
        dataDir,
        '--base-url',
        stub.baseUrl,
        '--model',
        'stub-model',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(stub.chatRequests().length).toBeGreaterThan(0);
    expect(stub.chatRequests().every((request) => request.body?.model === 'stub-model')).toBe(true);
    expect(stub.chatRequests()[0]?.headers.authorization).toBe('Bearer sk-local-test');
    expect(io.stdout.join('\n')).not.toContain('sk-local-test');
    expect(io.stderr).toContain(`key: OPENAI_API_KEY is sent to ${stub.baseUrl}`);
    expect(io.stderr.join('\n')).not.toContain('sk-local-test');
    // The session records the fleet as it ran: the flags applied once, by the run service.
    const sessionId = /^Session (ses_\S+) /.exec(io.stdout.at(-1) ?? '')?.[1] ?? '';
    const history = openHistory(dataDir, { recover: false });
    try {
      const providers = (history.store.getSession(sessionId)?.fleet?.agents ?? []).flatMap((agent) =>
        agent.provider ? [agent.provider] : [],
      );
      expect(providers.length).toBeGreaterThan(0);
      expect(providers.every((p) => p.model === 'stub-model' && p.baseUrl === stub.baseUrl)).toBe(true);
    } finally {
      history.close();
    }
  });

  it('shows who speaks to whom and the words of each message', async () => {
    const io = captureIo({});
    const code = await runCli(
      ['run', writeFleet(scriptedPair), '--task', 'Say hi', '--data-dir', dataDir],
      io,
    );
    expect(code).toBe(0);
    const text = io.stdout.join('\n');
    expect(text).toContain('user → everyone [task]\nSay hi');
    expect(text).toContain('ann → everyone\nhello there');
    expect(text).toContain('bob → everyone\nhi ann');
    expect(io.stdout.at(-1)).toContain(
      'completed: Stopped after 5 messages (The run reached its limit of 5 messages). 5 messages',
    );
  });

  it('streams tokens as they arrive when the terminal can write without newlines', async () => {
    // Pieces that arrive within one frame are printed together; these arrive far apart.
    stub.enqueue({ type: 'text', content: 'one two three', chunkSize: 4, delayMs: 150 });
    const writes: string[] = [];
    const io = Object.assign(captureIo({}), { write: (text: string) => writes.push(text) });
    const fleet = {
      version: 1,
      name: 'solo',
      agents: [{ name: 'solo', provider: { id: 'custom', model: 'm' } }],
      team: { pattern: 'sequential' },
    };
    const code = await runCli(
      ['run', writeFleet(fleet), '--task', 'count', '--data-dir', dataDir, '--base-url', stub.baseUrl],
      io,
    );
    expect(code).toBe(0);
    const streamed = writes.slice(0, writes.indexOf('\n'));
    expect(streamed.join('')).toBe('one two three');
    expect(streamed.length).toBeGreaterThan(1);
  });

  it('--json prints one event per line and a summary last', async () => {
    const io = captureIo({});
    const code = await runCli(
      ['run', writeFleet(scriptedPair), '--task', 'Say hi', '--json', '--data-dir', dataDir],
      io,
    );
    expect(code).toBe(0);
    const lines = io.stdout.map(
      (line) => JSON.parse(line) as { kind: string; seq?: number; messageCount?: number },
    );
    expect(lines[0]?.kind).toBe('session.started');
    expect(lines.at(-2)?.kind).toBe('session.stopped');
    expect(lines.at(-1)).toMatchObject({
      kind: 'summary',
      status: 'completed',
      stopReason: 'max-messages',
      messageCount: 5,
    });
    expect(lines.slice(0, -1).map((line) => line.seq)).toEqual(
      lines.slice(0, -1).map((_line, index) => index + 1),
    );
  });

  it('--max-messages caps the run on top of the fleet conditions', async () => {
    const io = captureIo({});
    const code = await runCli(
      [
        'run',
        writeFleet(scriptedPair),
        '--task',
        'x',
        '--max-messages',
        '2',
        '--json',
        '--data-dir',
        dataDir,
      ],
      io,
    );
    expect(code).toBe(0);
    expect(JSON.parse(io.stdout.at(-1)!)).toMatchObject({ messageCount: 2, stopReason: 'max-messages' });
  });

  it('asks a human agent on the terminal', async () => {
    const input = new PassThrough();
    const command = createRunCommand({ input: () => input });
    const io = captureIo({});
    const fleet = {
      version: 1,
      name: 'ask',
      agents: [
        { name: 'bot', type: 'scripted', script: [{ content: 'Deploy now?' }] },
        { name: 'me', type: 'human' },
      ],
      team: { pattern: 'sequential' },
    };
    const running = command.run([writeFleet(fleet), '--task', 'deploy', '--data-dir', dataDir], io);
    await expect.poll(() => io.stderr.join('\n'), { timeout: 5_000 }).toContain('bot: Deploy now?');
    input.write('yes please\n');
    expect(await running).toBe(0);
    expect(io.stdout.join('\n')).toContain('me → user\nyes please');
  });
});

describe('fleetscope run exit codes', () => {
  it('exits 2 without --task', async () => {
    const io = captureIo({});
    expect(await runCli(['run', writeFleet(scriptedPair)], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain('--task is required');
  });

  it('exits 2 for a bad --max-messages, naming the flag', async () => {
    const io = captureIo({});
    expect(await runCli(['run', writeFleet(scriptedPair), '--task', 'x', '--max-messages', 'lots'], io)).toBe(
      2,
    );
    expect(io.stderr.join('\n')).toContain('--max-messages must be a whole number');
  });

  it('exits 2 for a fleet file that is missing or not JSON', async () => {
    const missing = captureIo({});
    expect(await runCli(['run', join(dataDir, 'nope.json'), '--task', 'x'], missing)).toBe(2);
    expect(missing.stderr.join('\n')).toContain('ENOENT');
    const broken = captureIo({});
    expect(await runCli(['run', writeFleet('{"version": 1,'), '--task', 'x'], broken)).toBe(2);
    expect(broken.stderr.join('\n')).toContain('is not valid JSON');
  });

  it('exits 2 for a fleet naming a tool the app does not offer, naming it, before any session', async () => {
    const io = captureIo({});
    const [first, ...rest] = scriptedPair.agents;
    const unknownTool = { ...scriptedPair, agents: [{ ...first, tools: ['teleport'] }, ...rest] };
    expect(await runCli(['run', writeFleet(unknownTool), '--task', 'x', '--data-dir', dataDir], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain('unknown tool "teleport"');
    const history = openHistory(dataDir, { recover: false });
    try {
      expect(history.store.listSessions({ limit: 10 }).items).toEqual([]);
    } finally {
      history.close();
    }
  });

  it('exits 2 for an invalid fleet and names the field and why', async () => {
    const io = captureIo({});
    const invalid = { ...scriptedPair, team: { pattern: 'sequential', order: ['ann', 'carl'] } };
    expect(await runCli(['run', writeFleet(invalid), '--task', 'x', '--data-dir', dataDir], io)).toBe(2);
    expect(io.stderr.join('\n')).toContain('team.order[1]: member "carl" is not an agent in this fleet');
    expect(existsSync(join(dataDir, 'fleetscope.db'))).toBe(false);
  });

  it('exits 3 when the provider keeps failing, with a readable reason', async () => {
    stub.respondWith(() => ({ type: 'error', status: 503 }));
    const io = captureIo({ OPENAI_API_KEY: 'k' });
    const code = await runCli(
      [
        'run',
        join(fleets, 'openai', 'debate.json'),
        '--task',
        'x',
        '--base-url',
        stub.baseUrl,
        '--data-dir',
        dataDir,
      ],
      io,
    );
    expect(code).toBe(3);
    expect(io.stdout.at(-1)).toContain(
      'failed: Ended by an error (optimist: provider "openai" had a server error (503)',
    );
  });

  it('exits 3 on a stream that stalls past --idle-timeout', async () => {
    stub.enqueue({ type: 'stall', content: 'half' });
    const io = captureIo({ OPENAI_API_KEY: 'k' });
    const code = await runCli(
      [
        'run',
        join(fleets, 'openai', 'debate.json'),
        '--task',
        'x',
        '--base-url',
        stub.baseUrl,
        '--idle-timeout',
        '0.2',
        '--data-dir',
        dataDir,
      ],
      io,
    );
    expect(code).toBe(3);
    expect(io.stdout.join('\n')).toContain('(cut off)');
  });

  it('exits 3 when the API key variable is not set, naming it', async () => {
    const io = captureIo({});
    const code = await runCli(
      ['run', join(fleets, 'openai', 'debate.json'), '--task', 'x', '--data-dir', dataDir],
      io,
    );
    expect(code).toBe(3);
    expect(io.stdout.join('\n')).toContain('OPENAI_API_KEY is not set');
    expect(stub.chatRequests()).toHaveLength(0);
  });

  it('Ctrl+C cancels the run and aborts the request', async () => {
    stub.enqueue({ type: 'stall', content: 'slow' });
    const io = captureIo({ OPENAI_API_KEY: 'k' });
    const running = runCli(
      [
        'run',
        join(fleets, 'openai', 'debate.json'),
        '--task',
        'x',
        '--base-url',
        stub.baseUrl,
        '--data-dir',
        dataDir,
      ],
      io,
    );
    await stub.waitForChatRequests(1);
    io.interrupt();
    expect(await running).toBe(1);
    expect(io.stdout.at(-1)).toContain('stopped: Cancelled before the end');
  });
});
