import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleTraceExport, type FleetscopeApp } from '../app';

/**
 * The web host's OpenTelemetry trace route (`POST /v1/traces`): exporters pointed at the
 * printed endpoint send here, with the launch token in the `x-fleetscope-token` header (not the
 * page's query or cookie). Answered by the app's trace receiver; 404 while it is turned off.
 */
export function traceRoute(
  app: FleetscopeApp,
  token: string,
  port: () => number,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    if (!app.traces.enabled) {
      const body = JSON.stringify({ code: 5, message: 'The trace receiver is turned off (Settings).' });
      response.writeHead(404, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
      });
      response.end(body);
      return;
    }
    void handleTraceExport(request, response, {
      token,
      allowedHosts: () => [`127.0.0.1:${port()}`, `localhost:${port()}`],
      receive: (batch) => app.traces.receive(batch),
      onRefused: (status, reason) => app.logger.debug('A trace export was refused', { status, reason }),
    }).catch((error: unknown) => {
      app.logger.error('Answering a trace export failed', { err: error });
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  };
}
