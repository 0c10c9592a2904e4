import { readFileSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { parseArgs } from 'node:util';
import { fleetProviders, parseFleet, type Fleet } from '@shared/domain';
import { defaultDataDir } from '../../app/data-dir';
import { withMessageCap } from '../../app/run-service';
import { openHistory } from '../../history';
import {
  FleetInvalidError,
  applyProviderOverrides,
  createBuiltinTools,
  startRun,
  type EventSink,
  type RunHandle,
} from '../../orchestrator';
import { EXIT, UsageError, type CliCommand, type CliIO } from '../command';
import { JsonView, LiveView, type StreamingIO } from './run-view';

/**
 * Where `fleetscope run` stores its events: the same SQLite store the app shows
 * (DATA_DIR/fleetscope.db). It does not recover "interrupted" sessions: the app may be running
 * sessions of its own in the same store right now.
 */
export function createSink(dataDir: string): { sink: EventSink; close(): void } {
  const history = openHistory(dataDir, { recover: false });
  return { sink: history.store, close: () => history.close() };
}

/** Error codes that mean the model provider failed (exit code 3). */
const PROVIDER_ERROR_CODES = new Set([
  'rate-limited',
  'server-error',
  'auth',
  'bad-request',
  'connection',
  'stalled',
  'disconnected',
  'malformed-stream',
  'missing-api-key',
]);

export interface RunCommandOptions {
  /** Where human agents read their answers (default: the process's stdin, opened on demand). */
  input?: () => NodeJS.ReadableStream;
}

const USAGE =
  'fleetscope run FLEET.json --task "..." [--json] [--base-url URL] [--model M] [--api-key-env VAR] ' +
  '[--data-dir DIR] [--max-messages N] [--files DIR] [--idle-timeout SECONDS]';

export function createRunCommand(options: RunCommandOptions = {}): CliCommand {
  return {
    name: 'run',
    summary: 'Run a fleet on a task and watch the agents talk (or print JSON events)',
    usage: USAGE,
    run: (args, io) => runFleet(args, io, options),
  };
}

export const runCommand = createRunCommand();

interface RunArgs {
  fleetPath: string;
  task: string;
  json: boolean;
  dataDir: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  maxMessages?: number;
  files?: string;
  idleTimeoutMs?: number;
}

function parseRunArgs(args: string[], io: CliIO): RunArgs {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      task: { type: 'string' },
      json: { type: 'boolean', default: false },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key-env': { type: 'string' },
      'data-dir': { type: 'string' },
      'max-messages': { type: 'string' },
      files: { type: 'string' },
      'idle-timeout': { type: 'string' },
    },
  });
  const [fleetPath, ...extra] = positionals;
  if (fleetPath === undefined)
    throw new UsageError('Give the fleet file to run, e.g. `fleetscope run fleet.json --task "..."`.');
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  if (values.task === undefined || values.task.trim() === '')
    throw new UsageError('--task is required: what should the fleet do?');
  const result: RunArgs = {
    fleetPath,
    task: values.task,
    json: values.json,
    dataDir: values['data-dir'] ?? defaultDataDir(io.env),
  };
  if (values['base-url'] !== undefined) {
    if (!URL.canParse(values['base-url']))
      throw new UsageError(`--base-url must be a URL, got "${values['base-url']}".`);
    result.baseUrl = values['base-url'];
  }
  if (values.model !== undefined) result.model = values.model;
  if (values['api-key-env'] !== undefined) {
    if (!/^[A-Z_][A-Z0-9_]*$/.test(values['api-key-env'])) {
      throw new UsageError(
        `--api-key-env must name an environment variable (like OPENAI_API_KEY), got "${values['api-key-env']}".`,
      );
    }
    result.apiKeyEnv = values['api-key-env'];
  }
  if (values['max-messages'] !== undefined) {
    const max = Number(values['max-messages']);
    if (!Number.isInteger(max) || max < 1)
      throw new UsageError(`--max-messages must be a whole number above 0, got "${values['max-messages']}".`);
    result.maxMessages = max;
  }
  if (values['idle-timeout'] !== undefined) {
    const seconds = Number(values['idle-timeout']);
    if (!(seconds > 0))
      throw new UsageError(
        `--idle-timeout must be a number of seconds above 0, got "${values['idle-timeout']}".`,
      );
    result.idleTimeoutMs = Math.round(seconds * 1000);
  }
  if (values.files !== undefined) result.files = values.files;
  return result;
}

/** Reads and checks the fleet file; returns an error text naming the field on failure. */
function loadFleet(path: string): { fleet: Fleet; warnings: string[] } | { error: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return {
      error: `Cannot read the fleet file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `The fleet file ${path} is not valid JSON: ${(error as Error).message}.` };
  }
  const parsed = parseFleet(json, { knownTools: createBuiltinTools().names() });
  if (!parsed.ok) {
    const lines = parsed.issues.map((issue) => `  ${issue.path}: ${issue.message}`);
    return { error: `The fleet file ${path} is invalid:\n${lines.join('\n')}` };
  }
  return { fleet: parsed.fleet, warnings: parsed.warnings.map((issue) => `${issue.path}: ${issue.message}`) };
}

async function runFleet(args: string[], io: StreamingIO, options: RunCommandOptions): Promise<number> {
  const parsed = parseRunArgs(args, io);
  const loaded = loadFleet(parsed.fleetPath);
  if ('error' in loaded) {
    io.err(loaded.error);
    return EXIT.usage;
  }
  const store = createSink(parsed.dataDir);
  try {
    return await runAndShow(parsed, loaded.fleet, store.sink, io, options);
  } finally {
    store.close();
  }
}

/**
 * One line per API key variable and the address it is sent to, so a fleet file from elsewhere
 * cannot quietly send a key to a host of its choosing.
 */
function keyDestinations(fleet: Fleet): string[] {
  const lines = fleetProviders(fleet).flatMap((provider) =>
    provider.apiKeyEnv
      ? [
          `key: ${provider.apiKeyEnv} is sent to ${provider.baseUrl ?? `the default endpoint of provider "${provider.id}"`}`,
        ]
      : [],
  );
  return [...new Set(lines)];
}

async function runAndShow(
  parsed: ReturnType<typeof parseRunArgs>,
  fleet: Fleet,
  sink: EventSink,
  io: StreamingIO,
  options: RunCommandOptions,
): Promise<number> {
  let handle: RunHandle;
  try {
    handle = startRun({
      fleet: withMessageCap(fleet, parsed.maxMessages ?? null),
      task: parsed.task,
      sink,
      env: io.env,
      fileRoot: parsed.files ?? null,
      providerOverrides: { baseUrl: parsed.baseUrl, model: parsed.model, apiKeyEnv: parsed.apiKeyEnv },
      ...(parsed.idleTimeoutMs !== undefined ? { idleTimeoutMs: parsed.idleTimeoutMs } : {}),
    });
  } catch (error) {
    if (error instanceof FleetInvalidError) {
      io.err(
        `The fleet cannot run with these options:\n${error.issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n')}`,
      );
      return EXIT.usage;
    }
    throw error;
  }
  for (const warning of handle.warnings) io.err(`warning: ${warning}`);
  const overrides = { baseUrl: parsed.baseUrl, model: parsed.model, apiKeyEnv: parsed.apiKeyEnv };
  for (const line of keyDestinations(applyProviderOverrides(fleet, overrides))) io.err(line);

  const view = parsed.json ? new JsonView(io) : new LiveView(io);
  let lastErrorCode: string | null = null;
  const humans = new HumanPrompter(handle, io, options.input ?? (() => process.stdin));
  handle.onDidEvent((event) => {
    if (event.kind === 'error') lastErrorCode = event.payload.code;
    view.show(event);
    if (event.kind === 'human.requested') humans.ask(event.payload.requestId, event.payload.prompt);
  });
  void io.interrupted.then(() => handle.stop());
  const summary = await handle.done;
  humans.close();
  view.finish(summary);
  if (summary.status === 'failed')
    return lastErrorCode !== null && PROVIDER_ERROR_CODES.has(lastErrorCode) ? EXIT.provider : EXIT.failure;
  if (summary.stopReason === 'cancelled') return EXIT.failure;
  return EXIT.ok;
}

/** Asks a person on the terminal for each human.requested; stdin closing cancels the run. */
class HumanPrompter {
  private lines: Interface | null = null;
  private readonly queue: Array<{ requestId: string; prompt: string }> = [];
  private busy = false;

  constructor(
    private readonly handle: RunHandle,
    private readonly io: CliIO,
    private readonly input: () => NodeJS.ReadableStream,
  ) {}

  ask(requestId: string, prompt: string): void {
    this.queue.push({ requestId, prompt });
    void this.drain();
  }

  close(): void {
    this.lines?.close();
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.lines ??= createInterface({ input: this.input(), terminal: false });
    const iterator = this.lines[Symbol.asyncIterator]();
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      this.io.err(`\n${next.prompt}\nYour answer (one line): `);
      const line = await iterator.next();
      if (line.done) {
        this.io.err('No more input; cancelling the run.');
        this.handle.stop();
        break;
      }
      this.handle.answer(next.requestId, String(line.value));
    }
    this.busy = false;
  }
}
