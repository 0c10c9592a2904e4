import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { createApp } from '../../../src-main/app';
import { openHistory } from '../../../src-main/history';
import { captureIo } from '../../helpers/cli-io';
import { attr, startOtlpCollector, type OtlpCollector } from '../../helpers/otlp-collector';
import { makeTempDir } from '../../helpers/temp-dir';

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

let temp: ReturnType<typeof makeTempDir>;
let collector: OtlpCollector;
let fleetPath: string;
beforeEach(async () => {
  temp = makeTempDir('fleetscope-otlp-cli-');
  collector = await startOtlpCollector();
  fleetPath = join(temp.dir, 'fleet.json');
  writeFileSync(fleetPath, JSON.stringify(scriptedPair));
});
afterEach(async () => {
  await collector.close();
  temp.remove();
});

const dataDir = () => join(temp.dir, 'data');

function sessionOf(stdout: string[]): string {
  return /^Session (ses_\S+) /.exec(stdout.at(-1) ?? '')?.[1] ?? '';
}

describe('fleetscope run --otlp-endpoint', () => {
  it('streams the run to the collector with the headers from OTEL_EXPORTER_OTLP_HEADERS and says what was sent', async () => {
    const io = captureIo({ OTEL_EXPORTER_OTLP_HEADERS: 'x-fleetscope-token=t0ken%2Fabc' });
    const code = await runCli(
      ['run', fleetPath, '--task', 'Say hi', '--data-dir', dataDir(), '--otlp-endpoint', collector.endpoint],
      io,
    );
    expect(code).toBe(0);
    const sessionId = sessionOf(io.stdout);
    const spans = collector.spans();
    expect(spans.map((span) => attr(span, 'gen_ai.agent.name'))).toEqual([
      'ann',
      'bob',
      'ann',
      'bob',
      'pair',
    ]);
    expect(spans.every((span) => attr(span, 'gen_ai.conversation.id') === sessionId)).toBe(true);
    expect(collector.requests.every((request) => request.headers['x-fleetscope-token'] === 't0ken/abc')).toBe(
      true,
    );
    expect(io.stderr).toContain(`OTLP export: 5 spans sent to ${collector.endpoint}/v1/traces.`);
    // The token never appears in what the command prints.
    expect(io.stderr.join('\n')).not.toContain('t0ken');
  });

  it('--json keeps stdout to events; the export line goes to stderr', async () => {
    const io = captureIo({});
    const code = await runCli(
      [
        'run',
        fleetPath,
        '--task',
        'Hi',
        '--json',
        '--data-dir',
        dataDir(),
        '--otlp-endpoint',
        collector.endpoint,
      ],
      io,
    );
    expect(code).toBe(0);
    for (const line of io.stdout) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(io.stderr.at(-1)).toMatch(/^OTLP export: 5 spans sent to /);
  });

  it.each(['ftp://collector.example', 'localhost:4318', 'http://user:pw@collector.example', ''])(
    'refuses %j as a usage error before opening anything',
    async (endpoint) => {
      const io = captureIo({});
      const code = await runCli(
        ['run', fleetPath, '--task', 'Hi', '--data-dir', dataDir(), '--otlp-endpoint', endpoint],
        io,
      );
      expect(code).toBe(2);
      expect(io.stderr.join('\n')).toMatch(/--otlp-endpoint: The OTLP endpoint/);
      expect(existsSync(dataDir())).toBe(false);
      expect(collector.requests).toHaveLength(0);
    },
  );

  it('a collector that never answers: the run completes (exit 0) and the command says what did not arrive', async () => {
    collector.setFallback({ type: 'hang' });
    const io = captureIo({ OTEL_EXPORTER_OTLP_TIMEOUT: '300' });
    const code = await runCli(
      ['run', fleetPath, '--task', 'Hi', '--data-dir', dataDir(), '--otlp-endpoint', collector.endpoint],
      io,
    );
    expect(code).toBe(0);
    expect(io.stdout.at(-1)).toContain('completed');
    expect(io.stderr.at(-1)).toMatch(
      /^OTLP export: 0 spans sent to .*, 5 not accepted\. Last problem: .*timed out/,
    );
    const history = openHistory(dataDir(), { recover: false });
    try {
      expect(history.store.getSession(sessionOf(io.stdout))?.summary.messageCount).toBe(5);
    } finally {
      history.close();
    }
  });

  it('without the flag, a run uses the endpoint in Settings (shared by every surface)', async () => {
    const app = createApp({ dataDir: dataDir(), surface: 'browser', seedSamples: false, pingIntervalMs: 0 });
    await app.call('settings.set', { otlpExportEndpoint: collector.endpoint });
    await app.close();
    const io = captureIo({});
    expect(await runCli(['run', fleetPath, '--task', 'Hi', '--data-dir', dataDir()], io)).toBe(0);
    expect(collector.spans()).toHaveLength(5);
    expect(io.stderr).toContain(`OTLP export: 5 spans sent to ${collector.endpoint}/v1/traces.`);
  });
});

describe('continue and fork --otlp-endpoint', () => {
  async function firstRun(): Promise<string> {
    const io = captureIo({});
    expect(await runCli(['run', fleetPath, '--task', 'Say hi', '--data-dir', dataDir()], io)).toBe(0);
    return sessionOf(io.stdout);
  }

  function storedMessages(sessionId: string) {
    const history = openHistory(dataDir(), { recover: false });
    try {
      return history.store.pageMessages(sessionId, { limit: 500 }).items;
    } finally {
      history.close();
    }
  }

  it('continue streams the follow-up under the session trace, as a continuation span under its root', async () => {
    const sessionId = await firstRun();
    const before = storedMessages(sessionId).length;
    const io = captureIo({});
    const code = await runCli(
      [
        'continue',
        sessionId,
        '--task',
        'One more round',
        '--data-dir',
        dataDir(),
        '--otlp-endpoint',
        collector.endpoint,
      ],
      io,
    );
    expect(io.stderr.filter((line) => !line.startsWith('OTLP export'))).toEqual([]);
    expect(code).toBe(0);
    const added = storedMessages(sessionId).slice(before);
    const spoken = added.filter((message) => message.from !== 'user');
    expect(spoken.length).toBeGreaterThan(0);
    const spans = collector.spans();
    const chats = spans.filter((span) => attr(span, 'gen_ai.operation.name') === 'chat');
    expect(chats.map((span) => attr(span, 'gen_ai.agent.name'))).toEqual(
      spoken.map((message) => message.from),
    );
    expect(chats.every((span) => attr(span, 'gen_ai.conversation.id') === sessionId)).toBe(true);
    // The follow-up task reaches the first turn after it as the person's input.
    expect(attr(chats[0], 'gen_ai.input.messages')).toContain('One more round');
    const segment = spans.find((span) => attr(span, 'gen_ai.operation.name') === 'invoke_agent');
    expect(segment?.parentSpanId).toBe(chats[0]?.parentSpanId);
    expect(segment?.spanId).not.toBe(segment?.parentSpanId);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(io.stderr.at(-1)).toBe(
      `OTLP export: ${spans.length} spans sent to ${collector.endpoint}/v1/traces.`,
    );
  });

  it('fork streams the fork as its own trace whose root names the session it came from', async () => {
    const sessionId = await firstRun();
    const io = captureIo({});
    const code = await runCli(
      [
        'fork',
        sessionId,
        '--at',
        '3',
        '--edit',
        'A different turn',
        '--data-dir',
        dataDir(),
        '--otlp-endpoint',
        collector.endpoint,
      ],
      io,
    );
    expect(code).toBe(0);
    const forkId = io.stdout[0] ?? '';
    const spans = collector.spans();
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.every((span) => attr(span, 'gen_ai.conversation.id') === forkId)).toBe(true);
    const root = spans.find((span) => attr(span, 'gen_ai.operation.name') === 'invoke_agent');
    expect(root?.parentSpanId ?? '').toBe('');
    expect(attr(root, 'fleetscope.session.parent_id')).toBe(sessionId);
    expect(io.stderr.at(-1)).toBe(
      `OTLP export: ${spans.length} spans sent to ${collector.endpoint}/v1/traces.`,
    );
  });

  it.each([['continue'], ['fork']])('%s refuses a bad endpoint as a usage error', async (command) => {
    const sessionId = await firstRun();
    const io = captureIo({});
    const args = command === 'fork' ? ['fork', sessionId, '--at', '2'] : ['continue', sessionId];
    const code = await runCli(
      [...args, '--data-dir', dataDir(), '--otlp-endpoint', 'file:///etc/passwd'],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/--otlp-endpoint: The OTLP endpoint must be an http/);
    expect(collector.requests).toHaveLength(0);
  });
});
