import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleTraceExport, TRACES_PATH, type TraceReceiverOptions } from './otlp-http';

export interface TraceListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server that only receives traces (`POST /v1/traces`): the desktop app's
 * receiver, which has no web host to share. Port 0 picks a free one.
 */
export async function startTraceListener(
  port: number,
  options: Omit<TraceReceiverOptions, 'allowedHosts'>,
): Promise<TraceListener> {
  let bound = 0;
  const allowedHosts = () => [`127.0.0.1:${bound}`, `localhost:${bound}`];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== TRACES_PATH) {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(`404 Not found: this port receives OpenTelemetry traces at ${TRACES_PATH}\n`);
      return;
    }
    void handleTraceExport(request, response, { ...options, allowedHosts });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
