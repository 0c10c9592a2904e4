import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { IMPORT_UPLOAD_PATH, MAX_IMPORT_BYTES } from '@shared/contract';
import { uploadImport } from '../../../src-renderer/bridge/upload-import';
import { createWsBridge, type SocketLike } from '../../../src-renderer/bridge/ws-bridge';
import { exportWithMessages } from '../../bench/import-hostile/payloads';
import { createApp } from '../../../src-main/app';
import { startWebHost } from '../../../src-main/server/web-host';
import { makeTempDir } from '../../helpers/temp-dir';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

/** How long the host may take to notice a client (loaded machines included). */
const WAIT = { timeout: 15_000, interval: 20 };

const FIXTURE = join(import.meta.dirname, '../../fixtures/real/autogen-history-3agents-tools-boano.json');

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface UploadOptions {
  query?: Record<string, string>;
  headers?: Record<string, string>;
  method?: string;
  /** Sent with Content-Length unless `chunked`. */
  body?: Buffer | string;
  /** Sends the body in pieces without a Content-Length (Transfer-Encoding: chunked). */
  chunked?: Buffer[];
}

describe('the web host import upload', () => {
  let running: RunningHost;
  let port: number;
  let token: string;
  const origin = () => `http://127.0.0.1:${port}`;
  const uploads = () => join(running.dataDir, 'uploads');
  const leftInUploads = () => (existsSync(uploads()) ? readdirSync(uploads()) : []);
  const sessionCount = async () => (await running.app.call('sessions.list', {})).total;

  /** A raw HTTP request, so every header is exactly as the test says. */
  function upload(options: UploadOptions = {}): Promise<Answer> {
    const query = new URLSearchParams({ token, fileName: 'upload.json', ...options.query });
    for (const [key, value] of Object.entries(options.query ?? {})) if (value === '') query.delete(key);
    const headers: Record<string, string> = {
      host: `127.0.0.1:${port}`,
      origin: origin(),
      'content-type': 'application/octet-stream',
      ...options.headers,
    };
    if (!options.chunked && options.body !== undefined && !('content-length' in headers)) {
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: options.method ?? 'POST',
          path: `${IMPORT_UPLOAD_PATH}?${query}`,
          headers,
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      if (options.chunked) for (const piece of options.chunked) req.write(piece);
      else if (options.body !== undefined) req.write(options.body);
      req.end();
    });
  }

  const result = (answer: Answer) =>
    JSON.parse(answer.body) as
      | {
          ok: true;
          value: { sessionId: string; messageCount: number; format: string; earlier?: { title: string } };
        }
      | { ok: false; error: { code: string; message: string } };

  beforeAll(async () => {
    running = await startTestHost();
    port = running.host.port;
    token = running.host.token;
  });
  afterAll(() => running.stop());

  it('imports an uploaded file, reports progress under the page task id and removes the temp file', async () => {
    const progress: Array<{ taskId: string; label: string; finished: boolean }> = [];
    const stop = running.app.hub.onDidEmit((event) => {
      if (event.channel === 'task.progress') progress.push(event.payload);
    });
    const before = await sessionCount();
    const answer = await upload({
      query: { fileName: 'boano history.json', taskId: 'import-task-1' },
      body: readFileSync(FIXTURE),
    });
    stop();
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('application/json');
    const parsed = result(answer);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.format).toMatch(/autogen/);
    expect(parsed.value.messageCount).toBeGreaterThan(0);
    const stored = await running.app.call('sessions.get', { id: parsed.value.sessionId });
    expect(stored.summary.messageCount).toBe(parsed.value.messageCount);
    expect(await sessionCount()).toBe(before + 1);
    const mine = progress.filter((payload) => payload.taskId === 'import-task-1');
    expect(mine.at(0)).toMatchObject({ label: 'Importing boano history.json', finished: false });
    expect(mine.at(-1)).toMatchObject({ finished: true });
    expect(leftInUploads()).toEqual([]);
  });

  it('imports our own export sent in chunks without a length, and answers a second upload with the earlier session', async () => {
    const text = Buffer.from(exportWithMessages(2_000));
    const pieces = Array.from({ length: 8 }, (_, i) =>
      text.subarray((i * text.length) / 8, ((i + 1) * text.length) / 8),
    );
    const first = result(await upload({ query: { fileName: 'export.json' }, chunked: pieces }));
    expect(first).toMatchObject({ ok: true, value: { messageCount: 2_000, format: 'fleetscope-json' } });
    const before = await sessionCount();
    const again = result(await upload({ query: { fileName: 'export copy.json' }, body: text }));
    expect(again).toMatchObject({ ok: true, value: { earlier: { title: 'Bench 2000 messages' } } });
    if (first.ok && again.ok) expect(again.value.sessionId).toBe(first.value.sessionId);
    expect(await sessionCount()).toBe(before);
    const forced = result(
      await upload({ query: { fileName: 'export.json', allowDuplicate: 'true' }, body: text }),
    );
    expect(forced).toMatchObject({ ok: true, value: { messageCount: 2_000 } });
    expect(forced.ok && forced.value.earlier).toBeFalsy();
    expect(await sessionCount()).toBe(before + 1);
    expect(leftInUploads()).toEqual([]);
  });

  it.each([
    ['no token', { query: { token: '' } }, 401, 'forbidden', 'Missing token'],
    ['a wrong token', { query: { token: 'nope' } }, 403, 'forbidden', 'Wrong token'],
    [
      'a foreign origin',
      { headers: { origin: 'http://evil.example' } },
      403,
      'forbidden',
      'Origin not allowed',
    ],
    ['a foreign host', { headers: { host: 'evil.example' } }, 403, 'forbidden', 'Host not allowed'],
    ['a GET', { method: 'GET', body: undefined }, 405, 'invalid-input', 'POST'],
    [
      'a form post',
      { headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'invalid-input',
      'not application/x-www-form-urlencoded',
    ],
    ['no content type', { headers: { 'content-type': '' } }, 415, 'invalid-input', 'an undeclared type'],
    ['no file name', { query: { fileName: '' } }, 400, 'invalid-input', 'fileName'],
    ['an unknown parameter', { query: { content: 'x' } }, 400, 'invalid-input', 'content'],
    [
      'an allowDuplicate that is not a boolean',
      { query: { allowDuplicate: 'yes' } },
      400,
      'invalid-input',
      'allowDuplicate',
    ],
    ['an empty body', { body: '' }, 400, 'invalid-input', 'empty'],
    [
      'a declared size over the limit',
      { headers: { 'content-length': String(MAX_IMPORT_BYTES + 1) }, body: '' },
      413,
      'too-large',
      'larger than 48 MB',
    ],
  ] satisfies Array<[string, UploadOptions, number, string, string]>)(
    'refuses %s with a clear error and writes nothing',
    async (_name, options, status, code, message) => {
      const before = await sessionCount();
      const answer = await upload({ body: readFileSync(FIXTURE), ...options });
      expect(answer.status).toBe(status);
      const parsed = result(answer);
      expect(parsed).toMatchObject({ ok: false, error: { code } });
      if (!parsed.ok) expect(parsed.error.message).toContain(message);
      expect(await sessionCount()).toBe(before);
      expect(leftInUploads()).toEqual([]);
    },
  );

  it('answers a refused upload of a large file rather than resetting the connection mid-send', async () => {
    const before = await sessionCount();
    const answer = await upload({
      query: { token: 'stale-token' },
      body: Buffer.alloc(20 * 1024 * 1024, 0x20),
    });
    expect(answer.status).toBe(403);
    expect(result(answer)).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: 'Wrong token.' },
    });
    expect(await sessionCount()).toBe(before);
    expect(leftInUploads()).toEqual([]);
  });

  it('stops a body without a length once it passes the limit, keeping nothing', async () => {
    const before = await sessionCount();
    const megabyte = Buffer.alloc(1024 * 1024, 0x20);
    const pieces = Array.from({ length: MAX_IMPORT_BYTES / megabyte.length + 2 }, () => megabyte);
    // The host answers 413 and closes; a client still sending may see the close instead.
    const outcome = await upload({ chunked: pieces }).then(
      (answer) => ({ status: answer.status, body: answer.body }),
      (error: Error) => ({ status: 0, body: error.message }),
    );
    if (outcome.status !== 0) {
      expect(outcome.status).toBe(413);
      expect(JSON.parse(outcome.body)).toMatchObject({ ok: false, error: { code: 'too-large' } });
    } else expect(outcome.body).toMatch(/ECONNRESET|EPIPE|socket hang up/);
    await vi.waitFor(() => expect(leftInUploads()).toEqual([]), WAIT);
    expect(await sessionCount()).toBe(before);
  });

  it('removes the temp file of an aborted upload and imports nothing', async () => {
    const before = await sessionCount();
    const text = Buffer.from(exportWithMessages(3_000));
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `${IMPORT_UPLOAD_PATH}?token=${token}&fileName=aborted.json`,
      headers: {
        host: `127.0.0.1:${port}`,
        'content-type': 'application/json',
        'content-length': String(text.length),
      },
    });
    req.on('error', () => undefined);
    req.write(text.subarray(0, text.length / 2));
    // The host has started the file before the client goes away.
    await vi.waitFor(() => expect(leftInUploads()).toHaveLength(1), WAIT);
    req.destroy();
    await vi.waitFor(() => expect(leftInUploads()).toEqual([]), WAIT);
    expect(await sessionCount()).toBe(before);
    // The host still answers.
    expect((await running.app.call('sessions.list', {})).total).toBe(before);
  });

  it('refuses a fifth upload while four are in flight, and takes uploads again once they end', async () => {
    const before = await sessionCount();
    const held = Array.from({ length: 4 }, (_, i) => {
      const req = request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `${IMPORT_UPLOAD_PATH}?token=${token}&fileName=held-${i}.json`,
        headers: {
          host: `127.0.0.1:${port}`,
          'content-type': 'application/json',
          'content-length': '100000',
        },
      });
      req.on('error', () => undefined);
      req.write('{"messages":[');
      return req;
    });
    await vi.waitFor(() => expect(leftInUploads()).toHaveLength(4), WAIT);
    const refused = await upload({ body: readFileSync(FIXTURE) });
    expect(refused.status).toBe(429);
    expect(result(refused)).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    for (const req of held) req.destroy();
    await vi.waitFor(() => expect(leftInUploads()).toEqual([]), WAIT);
    expect(await sessionCount()).toBe(before);
    const taken = await upload({ query: { allowDuplicate: 'true' }, body: readFileSync(FIXTURE) });
    expect(taken.status).toBe(200);
    expect(await sessionCount()).toBe(before + 1);
  });

  it.each([
    ['deep nesting', '['.repeat(1024 * 1024) + ']'.repeat(1024 * 1024)],
    ['unclosed nesting', '['.repeat(2 * 1024 * 1024)],
    ['an unclosed export', exportWithMessages(500).slice(0, -40)],
    [
      'an export with a broken event',
      exportWithMessages(300).replace('"kind":"message.completed"', '"kind":7'),
    ],
    [
      'invalid UTF-8',
      Buffer.concat([
        Buffer.from('{"messages":[{"role":"user","content":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}]}'),
      ]),
    ],
  ])('refuses hostile JSON (%s) and leaves the store as it was', async (_name, body) => {
    const before = await running.app.call('sessions.list', {});
    const answer = await upload({ query: { fileName: 'hostile.json' }, body });
    expect([400, 413]).toContain(answer.status);
    const parsed = result(answer);
    expect(parsed).toMatchObject({ ok: false });
    if (!parsed.ok) {
      expect(['invalid-input', 'too-large']).toContain(parsed.error.code);
      expect(parsed.error.message.length).toBeGreaterThan(10);
      // Where the host keeps its files is none of the page's business.
      expect(parsed.error.message).not.toContain(running.dataDir);
    }
    expect(await running.app.call('sessions.list', {})).toEqual(before);
    expect(leftInUploads()).toEqual([]);
  });

  it('is what the browser bridge imports through, with the channel answer and errors', async () => {
    const bridge = createWsBridge({
      url: `ws://127.0.0.1:${port}/ws?token=${token}`,
      uploadUrl: `${origin()}${IMPORT_UPLOAD_PATH}?token=${token}`,
      createSocket: (url) => new WebSocket(url, { origin: origin() }) as unknown as SocketLike,
    });
    try {
      const text = exportWithMessages(120).replace('Bench 120 messages', 'Through the bridge');
      const imported = await bridge.importFile(new Blob([text]), {
        fileName: 'bridge.json',
        taskId: 't-bridge',
      });
      expect(imported).toMatchObject({ ok: true, value: { messageCount: 120 } });
      const again = await bridge.importFile(new Blob([text]), { fileName: 'bridge.json' });
      expect(again).toMatchObject({ ok: true, value: { earlier: { title: 'Through the bridge' } } });
      const refused = await bridge.importFile(new Blob(['{"not":"a transcript"}']), { fileName: 'odd.json' });
      expect(refused).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
      const wrongToken = createWsBridge({
        url: `ws://127.0.0.1:${port}/ws?token=nope`,
        uploadUrl: `${origin()}${IMPORT_UPLOAD_PATH}?token=nope`,
        createSocket: (url) => new WebSocket(url, { origin: origin() }) as unknown as SocketLike,
      });
      const forbidden = await wrongToken.importFile(new Blob([text]), { fileName: 'bridge.json' });
      wrongToken.dispose();
      expect(forbidden).toMatchObject({ ok: false, error: { code: 'forbidden', message: 'Wrong token.' } });
      const closed = createWsBridge({
        url: `ws://127.0.0.1:1/ws`,
        uploadUrl: `http://127.0.0.1:1${IMPORT_UPLOAD_PATH}`,
        createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      });
      const lost = await closed.importFile(new Blob([text]), { fileName: 'bridge.json' });
      closed.dispose();
      expect(lost).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    } finally {
      bridge.dispose();
    }
  });
});

describe('the page side of the upload', () => {
  it('turns an answer that is not the channel result into a clear unavailable error', async () => {
    const bodies = [
      { status: 502, type: 'text/html', body: '<h1>Bad gateway</h1>' },
      { status: 200, type: 'application/json', body: '{"ok":true,"value":{"sessionId":42}}' },
      { status: 500, type: 'application/json', body: '{"ok":false,"error":{"code":"boom"}}' },
      { status: 200, type: 'application/json', body: '[1,2]' },
    ];
    let next = 0;
    const server = createServer((req, res) => {
      const reply = bodies[next++ % bodies.length]!;
      req.resume();
      req.on('end', () => {
        res.writeHead(reply.status, { 'content-type': reply.type });
        res.end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const answers = [];
      for (let i = 0; i < bodies.length; i++) {
        answers.push(
          await uploadImport(`http://127.0.0.1:${port}/api/import`, new Blob(['{}']), { fileName: 'x.json' }),
        );
      }
      expect(answers.map((answer) => (answer.ok ? 'ok' : answer.error.code))).toEqual([
        'unavailable',
        'unavailable',
        'unavailable',
        'unavailable',
      ]);
      expect(answers[0]).toMatchObject({
        error: { message: expect.stringContaining('x.json with HTTP 502') },
      });
    } finally {
      server.close();
    }
  });
});

describe('uploads left by a host that stopped mid-upload', () => {
  it('are removed at the next start once an hour old; newer ones (another live host) are kept', async () => {
    const temp = makeTempDir();
    const dataDir = join(temp.dir, 'data');
    const old = join(dataDir, 'uploads', 'import-old');
    const recent = join(dataDir, 'uploads', 'import-recent');
    for (const folder of [old, recent]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'half.json'), '{"messages":[');
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    const app = createApp({ dataDir, surface: 'browser', pingIntervalMs: 0, seedSamples: false });
    const host = await startWebHost({ app, rendererDir: temp.dir });
    try {
      expect(readdirSync(join(dataDir, 'uploads'))).toEqual(['import-recent']);
    } finally {
      await host.close();
      await app.close();
      temp.remove();
    }
  });
});
