import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type FleetscopeApp } from '../../../../src-main/app';
import { makeTempDir } from '../../../helpers/temp-dir';
import { makeSender } from './otel-sdk';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function desktopApp(): FleetscopeApp {
  const temp = makeTempDir();
  const app = createApp({
    dataDir: join(temp.dir, 'data'),
    surface: 'desktop',
    listenForTraces: true,
    seedSamples: false,
    pingIntervalMs: 0,
    watchStore: false,
  });
  cleanups.push(() => temp.remove());
  cleanups.push(() => app.close());
  return app;
}

describe("the desktop app's own trace receiver", () => {
  it('listens on the configured port, takes spans from the real SDK, turns off and moves', async () => {
    const app = desktopApp();
    const port = await freePort();
    const status = await app.call('traces.configure', { port });
    expect(status).toMatchObject({
      mode: 'own-port',
      enabled: true,
      listening: true,
      port,
      configuredPort: port,
    });
    const header = status.envLines[1]?.split('=').slice(2).join('=') ?? '';
    const sender = makeSender({
      protocol: 'protobuf',
      endpoint: `http://127.0.0.1:${port}`,
      headers: { 'x-fleetscope-token': decodeURIComponent(header) },
    });
    sender.span({
      name: 'chat',
      start: Date.now() - 2_000,
      end: Date.now() - 1_000,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.agent.name': 'desk',
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'On the desktop.' }] },
        ]),
      },
    });
    await sender.flush();
    await sender.shutdown();
    const sessions = app.store.listSessions({}).items.filter((item) => item.source === 'otlp');
    expect(sessions.map((s) => s.title)).toEqual(['desk']);
    expect((await app.call('traces.receiver', {})).stats).toMatchObject({
      spansReceived: 1,
      sessionsStarted: 1,
    });

    const other = await fetch(`http://127.0.0.1:${port}/`);
    expect(other.status).toBe(404);

    const off = await app.call('traces.configure', { enabled: false });
    expect(off).toMatchObject({ enabled: false, listening: false, port: null, envLines: [] });
    await expect(fetch(`http://127.0.0.1:${port}/v1/traces`, { method: 'POST' })).rejects.toThrow();

    const next = await freePort();
    const moved = await app.call('traces.configure', { enabled: true, port: next });
    expect(moved).toMatchObject({ listening: true, port: next });
  });

  it('says so when its port is taken, and listens once another is chosen', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const address = blocker.address();
    const taken = typeof address === 'object' && address ? address.port : 0;
    const app = desktopApp();
    const status = await app.call('traces.configure', { port: taken });
    expect(status).toMatchObject({ listening: false, port: null });
    expect(status.error).toBe(`Port ${taken} is in use (another collector or app?). Choose another port.`);
    const free = await freePort();
    expect(await app.call('traces.configure', { port: free })).toMatchObject({
      listening: true,
      error: null,
    });
  });
});
