import { z } from 'zod';
import { command, query } from './define';

const count = z.number().int().nonnegative();

/** Default port of the desktop app's trace receiver: the port OTLP/HTTP exporters send to. */
export const DEFAULT_TRACE_PORT = 4318;

/** The quiet period that ends a traced session once its root span ended (seconds): default and range. */
export const DEFAULT_END_QUIET_SECONDS = 3;
export const MIN_END_QUIET_SECONDS = 1;
export const MAX_END_QUIET_SECONDS = 30;

/**
 * The OpenTelemetry trace receiver as the Settings page shows it. `envLines` are the two lines
 * to paste before an instrumented program (they hold this launch's token, which the user needs
 * to copy); null while the receiver does not listen.
 */
export const traceReceiverStatusSchema = z.object({
  /**
   * `web-host`: `fleetscope serve` receives on its own port; `own-port`: the desktop app listens
   * on the configured port; `none`: this surface receives no traces.
   */
  mode: z.enum(['web-host', 'own-port', 'none']),
  enabled: z.boolean(),
  listening: z.boolean(),
  /** The port the desktop receiver is set to use (the web host's port does not change). */
  configuredPort: z.number().int().min(1).max(65535),
  /**
   * Seconds with no span after a traced program's root span ended before its session completes
   * (a session of one trace; others wait for the receiver's longer quiet period).
   */
  endQuietSeconds: z.number().int().min(MIN_END_QUIET_SECONDS).max(MAX_END_QUIET_SECONDS),
  port: z.number().int().min(1).max(65535).nullable(),
  endpoint: z.string().max(200).nullable(),
  envLines: z.array(z.string().max(1000)).max(2),
  /** Why the receiver is not listening (a port in use, say); null when all is well. */
  error: z.string().max(1000).nullable(),
  stats: z.object({
    spansReceived: count,
    spansRejected: count,
    sessionsStarted: count,
    liveSessions: count,
    spansWaiting: count,
    spansOutsideSessions: count,
  }),
});
export type TraceReceiverStatus = z.infer<typeof traceReceiverStatusSchema>;

export const traceReceiverPatchSchema = z
  .object({
    enabled: z.boolean(),
    port: z.number().int().min(1).max(65535),
    endQuietSeconds: z.number().int().min(MIN_END_QUIET_SECONDS).max(MAX_END_QUIET_SECONDS),
  })
  .partial()
  .strict();
export type TraceReceiverPatch = z.infer<typeof traceReceiverPatchSchema>;

export const traceChannels = {
  'traces.receiver': query(
    z.object({}).strict(),
    traceReceiverStatusSchema,
    'The OpenTelemetry trace receiver: on or off, where it listens, the lines to paste, counts.',
  ),
  'traces.configure': command(
    traceReceiverPatchSchema,
    traceReceiverStatusSchema,
    'Turn the trace receiver on or off, or move it to another port; returns its new state.',
  ),
} as const;
