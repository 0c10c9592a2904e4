import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { Logger } from '@shared/logger';

/** The log file in the data folder; older ones are LOG_FILE.1 ... LOG_FILE.KEEP. */
export const LOG_FILE = 'fleetscope.log';
/** A log file past this size is rotated when a process opens it. */
const ROTATE_BYTES = 5 * 1024 * 1024;
const KEEP = 3;
const LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LEVELS)[number];

export interface LoggerOptions {
  dataDir: string;
  /** Default: FLEETSCOPE_LOG from `env`, else info. */
  level?: LogLevel;
  env?: NodeJS.ProcessEnv;
  /** Values that must never appear in a log line (API keys); read at every write. */
  secrets?: () => Iterable<string>;
}

/** The level FLEETSCOPE_LOG asks for (debug, info, warn, error, silent), or info. */
export function logLevelFrom(env: NodeJS.ProcessEnv): LogLevel {
  const wanted = env.FLEETSCOPE_LOG?.trim().toLowerCase();
  return (LEVELS as readonly string[]).includes(wanted ?? '') ? (wanted as LogLevel) : 'info';
}

/** Keeps at most KEEP old files: fleetscope.log -> .1 -> .2 ... when the current one is too big. */
function rotate(file: string): void {
  if (!existsSync(file) || statSync(file).size < ROTATE_BYTES) return;
  rmSync(`${file}.${KEEP}`, { force: true });
  for (let n = KEEP - 1; n >= 1; n--)
    if (existsSync(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`);
  renameSync(file, `${file}.1`);
}

/** Replaces every secret value (8 characters or more) in a line with a marker. */
export function maskSecrets(line: string, secrets: Iterable<string>): string {
  let masked = line;
  for (const secret of secrets) {
    if (secret.length >= 8 && masked.includes(secret)) masked = masked.split(secret).join('[secret]');
  }
  return masked;
}

/** Keys whose values are never written, wherever they appear in a line's context. */
const REDACTED_PATHS = ['apiKey', '*.apiKey', 'authorization', '*.authorization', 'headers.authorization'];

/**
 * The app's logger: JSON lines appended to DATA_DIR/fleetscope.log (rotated by size), level from
 * FLEETSCOPE_LOG, with keys redacted by name and the values of known secrets masked in every line.
 */
export function createLogger(options: LoggerOptions): AppLogger {
  const level = options.level ?? logLevelFrom(options.env ?? process.env);
  if (level === 'silent') return wrap(pino({ level: 'silent' }));
  const file = join(options.dataDir, LOG_FILE);
  const secrets = options.secrets ?? (() => []);
  const destination = openLogFile(options.dataDir, file);
  // A folder that cannot take the log (read-only, gone) must not stop the app: it logs nowhere.
  if (destination === null) return wrap(pino({ level: 'silent' }));
  const base = pino(
    {
      level,
      base: { pid: process.pid },
      redact: { paths: REDACTED_PATHS, censor: '[secret]' },
      serializers: { err: pino.stdSerializers.err },
      hooks: { streamWrite: (line) => maskSecrets(line, secrets()) },
    },
    destination,
  );
  return wrap(base);
}

/**
 * The log file, opened for appending (rotated first), or null where the folder cannot take it
 * (a read-only folder, share or backup; a full disk).
 */
function openLogFile(dataDir: string, file: string): pino.DestinationStream | null {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch {
    return null;
  }
  try {
    rotate(file);
  } catch {
    // Another process rotated it at the same moment (or the folder is read-only: the open says).
  }
  try {
    // Synchronous writes: lines are few (info and up by default), a crash loses none of them, and
    // the file is open before this returns (so a data folder removed later cannot fail an open).
    const destination = pino.destination({ dest: file, sync: true, mkdir: true });
    destination.on('error', () => undefined); // a full or vanished disk must never take the app down
    return destination;
  } catch {
    return null;
  }
}

/** The injected logger, plus a flush for the composition root to call on close. */
export type AppLogger = Logger & { flush(): void };

function wrap(base: pino.Logger): AppLogger {
  const call =
    (method: 'debug' | 'info' | 'warn' | 'error') => (message: string, context?: Record<string, unknown>) =>
      context ? base[method](context, message) : base[method](message);
  return {
    debug: call('debug'),
    info: call('info'),
    warn: call('warn'),
    error: call('error'),
    child: (bindings) => wrap(base.child(bindings)),
    flush: () => base.flush(),
  };
}
