import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../../src-main/app';
import { runCli } from '../../../src-main/cli/main';
import { captureIo } from '../../helpers/cli-io';
import { makeTempDir } from '../../helpers/temp-dir';
import { makeSender } from '../interop/otlp-in/otel-sdk';

const temps: Array<ReturnType<typeof makeTempDir>> = [];
afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));

describe('fleetscope serve and OpenTelemetry', () => {
  it('prints the two lines to paste, and an exporter configured only by them lands in the store', async () => {
    const temp = makeTempDir();
    temps.push(temp);
    const rendererDir = join(temp.dir, 'renderer');
    mkdirSync(rendererDir);
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>t</title>');
    const dataDir = join(temp.dir, 'data');
    const io = captureIo({ FLEETSCOPE_TOKEN: 'pinned token/with+odd=chars' });
    const exit = runCli(['serve', '--data-dir', dataDir, '--renderer-dir', rendererDir], io);
    await expect.poll(() => io.stdout.length, { timeout: 10_000 }).toBeGreaterThan(3);
    const port = /127\.0\.0\.1:(\d+)/.exec(io.stdout[0] ?? '')?.[1];
    const endpointLine = io.stdout.find((line) => line.startsWith('OTEL_EXPORTER_OTLP_ENDPOINT='));
    const headersLine = io.stdout.find((line) => line.startsWith('OTEL_EXPORTER_OTLP_HEADERS='));
    expect(endpointLine).toBe(`OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${port}`);
    // Percent-encoded, as the OTel environment variable specification says.
    expect(headersLine).toBe(
      'OTEL_EXPORTER_OTLP_HEADERS=x-fleetscope-token=pinned%20token%2Fwith%2Bodd%3Dchars',
    );

    const saved = { ...process.env };
    for (const line of [endpointLine, headersLine]) {
      const [name, ...value] = (line ?? '').split('=');
      process.env[name as string] = value.join('=');
    }
    try {
      const sender = makeSender({ protocol: 'protobuf' });
      sender.span({
        name: 'generation',
        start: Date.now() - 1_500,
        end: Date.now() - 500,
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o',
          'session.id': 'pasted-lines',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': 'Is anyone there?',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'Fleetscope is.',
        },
      });
      await sender.flush();
      await sender.shutdown();
    } finally {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved.OTEL_EXPORTER_OTLP_ENDPOINT;
      process.env.OTEL_EXPORTER_OTLP_HEADERS = saved.OTEL_EXPORTER_OTLP_HEADERS;
      if (saved.OTEL_EXPORTER_OTLP_ENDPOINT === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      if (saved.OTEL_EXPORTER_OTLP_HEADERS === undefined) delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
    }
    io.interrupt();
    expect(await exit).toBe(0);

    // Another process opening the same data folder sees the session, completed on shutdown.
    const app = createApp({
      dataDir,
      surface: 'cli',
      watchStore: false,
      seedSamples: false,
      pingIntervalMs: 0,
    });
    try {
      const sessions = app.store.listSessions({}).items.filter((item) => item.source === 'otlp');
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ status: 'completed', task: 'Is anyone there?', messageCount: 2 });
    } finally {
      await app.close();
    }
  });
});
