import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame } from '@shared/contract';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

/** A raw HTTP GET, so paths are sent exactly as written (no URL normalization). */
function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function openSocket(url: string, origin?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, origin ? { origin } : {});
    socket.once('open', () => resolve(socket));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

/** Sends frames and collects replies until `count` frames arrived. */
function exchange(socket: WebSocket, frames: unknown[], count: number): Promise<ServerFrame[]> {
  return new Promise((resolve) => {
    const replies: ServerFrame[] = [];
    const onMessage = (data: WebSocket.RawData) => {
      replies.push(JSON.parse(String(data)) as ServerFrame);
      if (replies.length === count) {
        socket.off('message', onMessage);
        resolve(replies);
      }
    };
    socket.on('message', onMessage);
    for (const frame of frames) socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  });
}

describe('the web host', () => {
  let running: RunningHost;
  let port: number;
  let token: string;

  beforeAll(async () => {
    running = await startTestHost();
    port = running.host.port;
    token = running.host.token;
  });
  afterAll(() => running.stop());

  it('prints a loopback URL that carries the launch token', () => {
    expect(running.host.url).toBe(`http://127.0.0.1:${port}/?token=${token}`);
    expect(token.length).toBeGreaterThanOrEqual(32);
  });

  it('serves the renderer with the token and sets a strict CSP and a session cookie', async () => {
    const response = await get(port, `/?token=${token}`, { host: `127.0.0.1:${port}` });
    expect(response.status).toBe(200);
    expect(response.body).toContain('stand-in');
    expect(String(response.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(String(response.headers['set-cookie'])).toContain('HttpOnly');
  });

  it('names its cookie after its port, so other local servers never get the token', async () => {
    const response = await get(port, `/?token=${token}`);
    expect(String(response.headers['set-cookie'])).toMatch(new RegExp(`^fleetscope_token_${port}=`));
    expect((await get(port, '/', { cookie: `fleetscope_token=${token}` })).status).toBe(401);
  });

  it('serves assets to a browser that holds the cookie', async () => {
    const response = await get(port, '/assets/app.js', { cookie: `fleetscope_token_${port}=${token}` });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toContain('javascript');
  });

  it('refuses a request without the token with 401', async () => {
    expect((await get(port, '/')).status).toBe(401);
    expect((await get(port, '/assets/app.js')).status).toBe(401);
  });

  it('refuses a wrong token with 403', async () => {
    expect((await get(port, '/?token=nope')).status).toBe(403);
    expect((await get(port, '/', { cookie: `fleetscope_token_${port}=nope` })).status).toBe(403);
  });

  it('refuses another Origin and a foreign Host (DNS rebinding) with 403', async () => {
    expect((await get(port, `/?token=${token}`, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(port, `/?token=${token}`, { host: `evil.example:${port}` })).status).toBe(403);
  });

  it.each([
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/..%5csecret.txt',
    '/%00index.html',
    '/%E0%A4%A',
    '/etc/passwd',
  ])('never serves files outside the renderer: %s', async (path) => {
    const response = await get(port, `${path}${path.includes('?') ? '&' : '?'}token=${token}`);
    expect([400, 404]).toContain(response.status);
    expect(response.body).not.toContain('outside the renderer');
  });

  it('refuses methods other than GET and HEAD', async () => {
    const status = await new Promise<number>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: `/?token=${token}`, method: 'POST' }, (res) =>
        resolve(res.statusCode ?? 0),
      );
      req.end('x');
    });
    expect(status).toBe(405);
  });

  describe('its WebSocket binding', () => {
    const origin = () => `http://127.0.0.1:${port}`;

    it('refuses a socket without the token, with a wrong token, or from another Origin', async () => {
      await expect(openSocket(`ws://127.0.0.1:${port}/ws`, origin())).rejects.toThrow('401');
      await expect(openSocket(`ws://127.0.0.1:${port}/ws?token=bad`, origin())).rejects.toThrow('403');
      await expect(
        openSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, 'http://evil.example'),
      ).rejects.toThrow('403');
    });

    it('runs contract calls and answers bad frames with typed errors, staying up', async () => {
      const socket = await openSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, origin());
      const replies = await exchange(
        socket,
        [
          { type: 'call', id: 1, channel: 'settings.set', payload: { theme: 'dark' } },
          { type: 'call', id: 2, channel: 'no.such.channel', payload: {} },
          { type: 'call', id: 3, channel: 'settings.set', payload: { theme: 12 } },
          { type: 'call', id: 4, channel: 'settings.set' },
          'this is not json',
          { type: 'call', id: 5, channel: 'settings.set', payload: { theme: 'x'.repeat(9 * 1024 * 1024) } },
          { type: 'call', id: 6, channel: 'settings.get', payload: {} },
        ],
        7,
      );
      const byId = new Map(replies.map((frame) => [frame.type === 'result' ? frame.id : -99, frame]));
      expect(byId.get(1)).toMatchObject({ result: { ok: true, value: { theme: 'dark' } } });
      expect(byId.get(2)).toMatchObject({ result: { ok: false, error: { code: 'unknown-channel' } } });
      expect(byId.get(3)).toMatchObject({ result: { ok: false, error: { code: 'invalid-input' } } });
      expect(byId.get(4)).toMatchObject({ result: { ok: true } });
      expect(byId.get(-1)).toMatchObject({ result: { ok: false, error: { code: 'invalid-input' } } });
      expect(byId.get(5)).toMatchObject({ result: { ok: false, error: { code: 'too-large' } } });
      expect(byId.get(6)).toMatchObject({ result: { ok: true, value: { theme: 'dark' } } });
      socket.close();
    });

    it('greets with hello and forwards events in order', async () => {
      const socket = await openSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, origin());
      const [welcome] = await exchange(socket, [{ type: 'hello', epoch: null, lastSeq: 0 }], 1);
      expect(welcome).toMatchObject({ type: 'welcome', resync: false });
      const before = running.app.hub.lastSeq;
      const frames = exchange(socket, [], 1);
      running.app.hub.emit('ping', { n: 1, at: 1 });
      running.app.hub.emit('ping', { n: 2, at: 2 });
      const [events] = await frames;
      expect(events).toEqual({
        type: 'events',
        events: [
          { seq: before + 1, channel: 'ping', payload: { n: 1, at: 1 } },
          { seq: before + 2, channel: 'ping', payload: { n: 2, at: 2 } },
        ],
      });
      socket.close();
    });
  });
});

describe('exported session downloads', () => {
  let running: RunningHost;
  beforeAll(async () => {
    running = await startTestHost();
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    mkdirSync(join(running.dataDir, 'exports'), { recursive: true });
    writeFileSync(join(running.dataDir, 'exports', 'talk-1234.html'), '<script>alert(1)</script>');
  });
  afterAll(() => running.stop());

  it('serves an export as a download to a holder of the token, never as a page', async () => {
    const { port, token } = running.host;
    const response = await get(port, '/exports/talk-1234.html', {
      cookie: `fleetscope_token_${port}=${token}`,
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-disposition']).toBe('attachment; filename="talk-1234.html"');
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect((await get(port, '/exports/talk-1234.html')).status).toBe(401);
  });

  it.each(['/exports/../fleetscope.db', '/exports/%2e%2e%2ffleetscope.db', '/exports/a/b.json', '/exports/'])(
    'serves nothing outside the exports folder: %s',
    async (path) => {
      const { port, token } = running.host;
      expect((await get(port, path, { cookie: `fleetscope_token_${port}=${token}` })).status).toBe(404);
    },
  );
});
