import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Delivered } from '@shared/contract';
import { createApp } from '../../../src-main/app';
import { startWebHost } from '../../../src-main/server/web-host';
import { createWsBridge, type SocketLike } from '../../../src-renderer/bridge/ws-bridge';
import type { Bridge, ConnectionState } from '../../../src-renderer/bridge/types';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (condition()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error('condition not met in time'));
      setTimeout(check, 10);
    };
    check();
  });
}

function connectBridge(running: RunningHost): Bridge {
  const { port, token } = running.host;
  return createWsBridge({
    url: `ws://127.0.0.1:${port}/ws?token=${token}`,
    uploadUrl: `http://127.0.0.1:${port}/api/import?token=${token}`,
    createSocket: (url) =>
      new WebSocket(url, { origin: `http://127.0.0.1:${port}` }) as unknown as SocketLike,
    minDelayMs: 20,
    maxDelayMs: 100,
  });
}

describe('the browser bridge', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('replays events missed while the host was down, each exactly once, and reports its state', async () => {
    const running = await startTestHost();
    cleanups.push(() => running.stop());
    const bridge = connectBridge(running);
    cleanups.push(() => bridge.dispose());
    const states: ConnectionState[] = [];
    const received: Delivered[] = [];
    let resyncs = 0;
    bridge.onDidChangeConnection((state) => states.push(state));
    bridge.onDidReceiveEvent((event) => received.push(event));
    bridge.onDidRequireResync(() => resyncs++);

    await until(() => bridge.connection === 'online');
    running.app.hub.emit('ping', { n: 1, at: 1 });
    await until(() => received.length === 1);

    const { port, token } = running.host;
    await running.host.close();
    await until(() => bridge.connection === 'offline');
    running.app.hub.emit('ping', { n: 2, at: 2 });
    running.app.hub.emit('ping', { n: 3, at: 3 });
    const settingsCall = bridge.call('settings.get', {});

    const restarted = await startWebHost({ app: running.app, rendererDir: running.rendererDir, port, token });
    cleanups.push(() => restarted.close());
    await until(() => received.length === 3);
    running.app.hub.emit('ping', { n: 4, at: 4 });
    await until(() => received.length === 4);

    expect(received.map((event) => event.payload)).toEqual([
      { n: 1, at: 1 },
      { n: 2, at: 2 },
      { n: 3, at: 3 },
      { n: 4, at: 4 },
    ]);
    expect(resyncs).toBe(0);
    expect(states).toContain('offline');
    expect(states.at(-1)).toBe('online');
    expect(await settingsCall).toMatchObject({ ok: true, value: { theme: 'system' } });
  });

  it('replays events missed during a drop even when none had arrived before it', async () => {
    const running = await startTestHost();
    cleanups.push(() => running.stop());
    const bridge = connectBridge(running);
    cleanups.push(() => bridge.dispose());
    const received: Delivered[] = [];
    bridge.onDidReceiveEvent((event) => received.push(event));
    await until(() => bridge.connection === 'online');

    const { port, token } = running.host;
    await running.host.close();
    await until(() => bridge.connection === 'offline');
    running.app.hub.emit('ping', { n: 1, at: 1 });
    running.app.hub.emit('ping', { n: 2, at: 2 });
    const restarted = await startWebHost({ app: running.app, rendererDir: running.rendererDir, port, token });
    cleanups.push(() => restarted.close());
    await until(() => received.length === 2);
    expect(received.map((event) => event.seq)).toEqual([1, 2]);
  });

  it('asks views to resynchronize when a new host launch cannot replay', async () => {
    const running = await startTestHost();
    cleanups.push(() => running.stop());
    const bridge = connectBridge(running);
    cleanups.push(() => bridge.dispose());
    let resyncs = 0;
    bridge.onDidRequireResync(() => resyncs++);
    await until(() => bridge.connection === 'online');

    const { port, token } = running.host;
    await running.host.close();
    await until(() => bridge.connection === 'offline');
    const freshApp = createApp({
      dataDir: running.dataDir,
      surface: 'browser',
      pingIntervalMs: 0,
      seedSamples: false,
    });
    cleanups.push(() => freshApp.close());
    const restarted = await startWebHost({ app: freshApp, rendererDir: running.rendererDir, port, token });
    cleanups.push(() => restarted.close());

    await until(() => resyncs === 1);
    const received: Delivered[] = [];
    bridge.onDidReceiveEvent((event) => received.push(event));
    freshApp.hub.emit('ping', { n: 9, at: 9 });
    await until(() => received.length === 1);
    expect(received[0]).toMatchObject({ seq: 1, payload: { n: 9 } });
  });

  it('answers calls over the socket, with typed errors for bad input', async () => {
    const running = await startTestHost();
    cleanups.push(() => running.stop());
    const bridge = connectBridge(running);
    cleanups.push(() => bridge.dispose());
    await until(() => bridge.connection === 'online');
    expect(await bridge.call('app.info', {})).toMatchObject({ ok: true, value: { surface: 'browser' } });
    const bad = await bridge.call('settings.set', { theme: 'neon' } as never);
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
  });
});
