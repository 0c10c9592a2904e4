import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { IMPORT_UPLOAD_PATH, MAX_PAYLOAD_BYTES, WS_PATH } from '@shared/contract';
import { TRACES_PATH, type FleetscopeApp } from '../app';
import { resolveStaticPath, sendFile } from './static-files';
import { BASE_HEADERS, checkAccess, contentSecurityPolicy, tokenCookie } from './security';
import { bindSocket } from './socket-binding';
import { traceRoute } from './otlp-receiver';
import { importUploadRoute } from './import-upload';
import { isPageNavigation, REFUSAL_PAGE_CSP, refusalPage } from './refusal-page';

/** Where exported sessions are downloaded from: /exports/<file name>. */
export const EXPORTS_PREFIX = '/exports/';

export interface WebHostOptions {
  app: FleetscopeApp;
  /** Folder holding the built renderer (index.html and assets). */
  rendererDir: string;
  /** 0 picks a free port. */
  port?: number;
  /** Fixed token for tests; a fresh random one per launch otherwise. */
  token?: string;
}

export interface WebHost {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/**
 * Serves the built renderer on 127.0.0.1, binds the contract over a WebSocket at /ws and takes
 * import uploads at IMPORT_UPLOAD_PATH.
 */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  let port = 0;
  // Room for the largest call any channel but an import takes (its text JSON-escaped, up to twice
  // as long), so an oversized call still gets its typed answer; files go over IMPORT_UPLOAD_PATH,
  // streamed to disk, and only small ones fit a frame. A larger frame closes the socket (1009).
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 2 * MAX_PAYLOAD_BYTES + 1024 * 1024 });

  const refuse = (response: ServerResponse, status: number, reason: string) => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...BASE_HEADERS });
    response.end(`${status} ${reason}\n`);
  };

  const receiveTraces = traceRoute(options.app, token, () => port);
  const receiveImport = importUploadRoute(options.app, (request, url) =>
    checkAccess(request, url, port, token),
  );

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // OTLP exporters post here with the token in a header (see otlp-receiver.ts).
    if (url.pathname === TRACES_PATH) return receiveTraces(request, response);
    // Imports are streamed to disk here; the route makes the same access checks as below.
    if (url.pathname === IMPORT_UPLOAD_PATH) return receiveImport(request, response, url);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return refuse(response, 405, 'Method not allowed');
    const verdict = checkAccess(request, url, port, token);
    if (!verdict.ok) {
      // A person opening the address gets a page that says how to get in; same status codes.
      if (!isPageNavigation(request)) return refuse(response, verdict.status, verdict.reason);
      response.writeHead(verdict.status, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        ...BASE_HEADERS,
        'Content-Security-Policy': REFUSAL_PAGE_CSP,
      });
      return response.end(refusalPage(verdict.status, verdict.reason, port));
    }
    if (url.pathname.startsWith(EXPORTS_PREFIX)) {
      // Exported sessions, as downloads (never rendered: an HTML export is untrusted content).
      const name = url.pathname.slice(EXPORTS_PREFIX.length);
      const file = name.includes('/')
        ? null
        : resolveStaticPath(join(options.app.info.dataDir, 'exports'), `/${name}`);
      if (!file) return refuse(response, 404, 'Not found');
      const disposition = `attachment; filename="${basename(file).replace(/[^\w.-]/g, '_')}"`;
      return sendFile(
        response,
        file,
        { ...BASE_HEADERS, 'Content-Disposition': disposition },
        'application/octet-stream',
      );
    }
    const file = resolveStaticPath(options.rendererDir, url.pathname);
    if (!file) return refuse(response, 404, 'Not found');
    const headers: Record<string, string> = { ...BASE_HEADERS };
    if (file.endsWith('.html')) headers['Content-Security-Policy'] = contentSecurityPolicy(port);
    if (verdict.viaQuery) {
      headers['Set-Cookie'] = `${tokenCookie(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    }
    sendFile(response, file, headers);
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const verdict = url.pathname === WS_PATH ? checkAccess(request, url, port, token) : null;
    if (!verdict || !verdict.ok) {
      const status = verdict ? verdict.status : 404;
      socket.end(
        `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found'}\r\n\r\n`,
      );
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => bindSocket(ws, options.app));
  });

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolvePromise());
  });
  port = (server.address() as AddressInfo).port;
  options.app.traces.useWebHost(port, token);

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    },
  };
}
