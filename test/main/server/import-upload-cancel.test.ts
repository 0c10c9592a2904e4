import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { IMPORT_UPLOAD_PATH, type EventPayload } from '@shared/contract';
import { createWsBridge, type SocketLike } from '../../../src-renderer/bridge/ws-bridge';
import { exportWithMessages } from '../../bench/import-hostile/payloads';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

/** How long the host may take to notice a client or finish an import (loaded machines included). */
const WAIT = { timeout: 120_000, interval: 20 };

const FIXTURE = join(import.meta.dirname, '../../fixtures/real/autogen-history-3agents-tools-boano.json');

type TaskProgress = EventPayload<'task.progress'>;

describe('an import upload whose page goes away', () => {
  let running: RunningHost;
  /** Every task.progress the host emitted, by task id. */
  const progress = new Map<string, TaskProgress[]>();
  /** Called with each task.progress as the host emits it (synchronously, inside the import). */
  let onProgress: (payload: TaskProgress) => void = () => undefined;
  const uploads = () => join(running.dataDir, 'uploads');
  const leftInUploads = () => (existsSync(uploads()) ? readdirSync(uploads()) : []);
  const sessionCount = async () => (await running.app.call('sessions.list', {})).total;
  const finished = (taskId: string) => progress.get(taskId)?.some((payload) => payload.finished) ?? false;

  beforeAll(async () => {
    running = await startTestHost();
    running.app.hub.onDidEmit((event) => {
      if (event.channel !== 'task.progress') return;
      const list = progress.get(event.payload.taskId) ?? [];
      list.push(event.payload);
      progress.set(event.payload.taskId, list);
      onProgress(event.payload);
    });
  });
  afterAll(() => running.stop());

  /** Starts an upload of `body` under `taskId`; resolves with the HTTP status, or 0 if the socket closed. */
  function startUpload(
    taskId: string,
    body: Buffer,
    extra = '',
  ): { req: ClientRequest; status: Promise<number> } {
    const { port, token } = running.host;
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `${IMPORT_UPLOAD_PATH}?token=${token}&fileName=${taskId}.json&taskId=${taskId}${extra}`,
      headers: {
        host: `127.0.0.1:${port}`,
        'content-type': 'application/octet-stream',
        'content-length': String(body.length),
      },
    });
    const status = new Promise<number>((resolve) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.on('close', () => resolve(0));
    });
    req.end(body);
    return { req, status };
  }

  /**
   * Destroys the request's socket once the host reports the import writing (past the first half
   * of its progress: sessions begun, events committed) and not yet done.
   */
  function destroyWhileWriting(taskId: string, req: ClientRequest): Promise<TaskProgress> {
    return new Promise((resolve) => {
      onProgress = (payload) => {
        if (payload.taskId !== taskId || payload.finished || payload.total === null) return;
        if (payload.done <= payload.total / 2 || payload.done >= payload.total) return;
        onProgress = () => undefined;
        req.destroy();
        resolve(payload);
      };
    });
  }

  it('cancels the import when the client destroys its socket mid-import, leaving no session and no temp file', async () => {
    const before = await sessionCount();
    const body = Buffer.from(exportWithMessages(40_000).replace('Bench 40000', 'Abandoned'));
    const { req, status } = startUpload('abandoned', body);
    const seen = await destroyWhileWriting('abandoned', req);
    expect(seen.done).toBeLessThan(body.length);
    expect(await status).toBe(0);
    // The import ends (its task finishes) and what it wrote is gone.
    await vi.waitFor(() => expect(finished('abandoned')).toBe(true), WAIT);
    await vi.waitFor(() => expect(leftInUploads()).toEqual([]), WAIT);
    expect(await sessionCount()).toBe(before);
    const titles = (await running.app.call('sessions.list', { search: 'Abandoned' })).items;
    expect(titles).toEqual([]);
  });

  it('leaves an upload from another connection to finish its import', async () => {
    const before = await sessionCount();
    const big = Buffer.from(exportWithMessages(40_000).replace('Bench 40000', 'Left behind'));
    const abandoned = startUpload('left-behind', big);
    const cancelled = destroyWhileWriting('left-behind', abandoned.req);
    await cancelled;
    // Sent while the first one imports: it waits its turn, then imports as usual.
    const other = startUpload('other-tab', readFileSync(FIXTURE), '&allowDuplicate=true');
    expect(await other.status).toBe(200);
    await vi.waitFor(() => expect(finished('left-behind')).toBe(true), WAIT);
    await vi.waitFor(() => expect(leftInUploads()).toEqual([]), WAIT);
    expect(await sessionCount()).toBe(before + 1);
    expect((await running.app.call('sessions.list', { search: 'Left behind' })).items).toEqual([]);
  });

  it("cancels through the bridge's signal: the page hears it was cancelled and nothing is kept", async () => {
    const { port, token } = running.host;
    const origin = `http://127.0.0.1:${port}`;
    const bridge = createWsBridge({
      url: `ws://127.0.0.1:${port}/ws?token=${token}`,
      uploadUrl: `${origin}${IMPORT_UPLOAD_PATH}?token=${token}`,
      createSocket: (url) => new WebSocket(url, { origin }) as unknown as SocketLike,
    });
    try {
      const before = await sessionCount();
      const abort = new AbortController();
      onProgress = (payload) => {
        if (payload.taskId !== 'bridge-cancel' || payload.finished || payload.total === null) return;
        if (payload.done <= payload.total / 2 || payload.done >= payload.total) return;
        onProgress = () => undefined;
        abort.abort();
      };
      const text = exportWithMessages(40_000).replace('Bench 40000', 'Cancelled from the page');
      const answer = await bridge.importFile(
        new Blob([text]),
        { fileName: 'cancelled.json', taskId: 'bridge-cancel' },
        { signal: abort.signal },
      );
      expect(abort.signal.aborted).toBe(true);
      expect(answer).toEqual({
        ok: false,
        error: { code: 'unavailable', message: 'The import of cancelled.json was cancelled.' },
      });
      await vi.waitFor(() => expect(finished('bridge-cancel')).toBe(true), WAIT);
      await vi.waitFor(() => expect(leftInUploads()).toEqual([]), WAIT);
      expect(await sessionCount()).toBe(before);
    } finally {
      bridge.dispose();
    }
  });

  it('keeps an import whose answer was sent before the client went away', async () => {
    const before = await sessionCount();
    const body = Buffer.from(exportWithMessages(3_000).replace('Bench 3000', 'Kept'));
    const { req, status } = startUpload('kept', body);
    expect(await status).toBe(200);
    req.destroy();
    await vi.waitFor(() => expect(leftInUploads()).toEqual([]), WAIT);
    expect(await sessionCount()).toBe(before + 1);
  });
});
