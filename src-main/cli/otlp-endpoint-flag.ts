import { OtlpTargetError, tracesUrl, type FleetscopeApp } from '../app';
import { UsageError, type CliIO } from './command';

/**
 * `--otlp-endpoint URL`, shared by every command that runs a fleet (run, continue, fork): the
 * session's spans stream to that OTLP/HTTP collector while it runs, instead of the endpoint in
 * Settings. Headers (a hosted collector's credentials, Fleetscope's own token) and the request
 * timeout come from OTEL_EXPORTER_OTLP_HEADERS / OTEL_EXPORTER_OTLP_TIMEOUT, as every
 * OpenTelemetry exporter reads them.
 */
export const OTLP_ENDPOINT_OPTION = { 'otlp-endpoint': { type: 'string' } } as const;

export const OTLP_ENDPOINT_USAGE = '[--otlp-endpoint URL]';

/** The longest a command waits after its run for the last spans to reach the collector. */
const FINAL_FLUSH_MAX_MS = 5_000;
/** Past an export's own deadline, the time its result takes to come back. */
const RESULT_MARGIN_MS = 500;

/**
 * Points the app's live export at the flag's endpoint (before the run starts). Throws a
 * UsageError for an address that is not http(s); warns about unusable header entries.
 */
export function useOtlpEndpoint(app: FleetscopeApp, endpoint: string | undefined, io: CliIO): void {
  if (endpoint === undefined) return;
  try {
    const { problems } = app.liveExport.useEndpoint(endpoint);
    for (const problem of problems) io.err(`warning: ${problem}.`);
  } catch (error) {
    if (error instanceof OtlpTargetError) throw new UsageError(`--otlp-endpoint: ${error.message}`);
    throw error;
  }
}

/** Checks the flag's value before anything is opened, so a typo costs nothing. */
export function checkOtlpEndpoint(endpoint: string | undefined): string | undefined {
  if (endpoint === undefined) return undefined;
  try {
    tracesUrl(endpoint);
  } catch (error) {
    if (error instanceof OtlpTargetError) throw new UsageError(`--otlp-endpoint: ${error.message}`);
    throw error;
  }
  return endpoint;
}

/**
 * After the run: gives queued spans a bounded last chance to go out (never longer than the
 * export timeout, so that an export in flight ends and is counted, or 5 s), then says on stderr
 * what reached each collector and what did not.
 */
export async function finishLiveExport(app: FleetscopeApp, io: CliIO): Promise<void> {
  const used = app.liveExport.report();
  if (used.length === 0) return;
  const timeout = Math.min(FINAL_FLUSH_MAX_MS, ...used.map((line) => line.timeoutMs + RESULT_MARGIN_MS));
  await app.liveExport.flush(timeout);
  for (const line of app.liveExport.report()) {
    const parts = [`${line.sent} spans sent to ${line.url}`];
    if (line.dropped > 0) parts.push(`${line.dropped} dropped (queue full)`);
    if (line.failed > 0) parts.push(`${line.failed} not accepted`);
    if (line.pending > 0) parts.push(`${line.pending} still unsent`);
    const trouble = line.dropped + line.failed + line.pending > 0;
    io.err(
      `OTLP export: ${parts.join(', ')}.${trouble && line.lastError ? ` Last problem: ${line.lastError}` : ''}`,
    );
  }
}
