import { createInterface, type Interface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Fleet } from '@shared/domain';
import { AppError, loadFleetFile, type FleetscopeApp, type LaunchRequest, type RunHandle } from '../../app';
import { EXIT, UsageError, type CliCommand, type CliIO } from '../command';
import { dataDirFrom, withApp } from '../open-app';
import {
  OTLP_ENDPOINT_OPTION,
  OTLP_ENDPOINT_USAGE,
  checkOtlpEndpoint,
  finishLiveExport,
  useOtlpEndpoint,
} from '../otlp-endpoint-flag';
import { PROVIDER_FLAGS, providerOverrides } from './provider-flags';
import { JsonView, LiveView, type StreamingIO } from './run-view';

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
  'no-address',
  'unexpected-response',
  'empty-reply',
]);

export interface RunCommandOptions {
  /** Where human agents read their answers (default: the process's stdin, opened on demand). */
  input?: () => NodeJS.ReadableStream;
}

const USAGE =
  'fleetscope run FLEET.json --task "..." [--json] [--base-url URL] [--model M] [--api-key-env VAR] ' +
  `[--data-dir DIR] [--max-messages N] [--files DIR] [--idle-timeout SECONDS] ${OTLP_ENDPOINT_USAGE}`;

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
  otlpEndpoint?: string;
}

function parseRunArgs(args: string[], io: CliIO): RunArgs {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      task: { type: 'string' },
      json: { type: 'boolean', default: false },
      ...PROVIDER_FLAGS,
      'data-dir': { type: 'string' },
      'max-messages': { type: 'string' },
      files: { type: 'string' },
      'idle-timeout': { type: 'string' },
      ...OTLP_ENDPOINT_OPTION,
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
    dataDir: dataDirFrom(values['data-dir'], io),
    ...providerOverrides(values),
  };
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
  const otlpEndpoint = checkOtlpEndpoint(values['otlp-endpoint']);
  if (otlpEndpoint !== undefined) result.otlpEndpoint = otlpEndpoint;
  return result;
}

async function runFleet(args: string[], io: StreamingIO, options: RunCommandOptions): Promise<number> {
  const parsed = parseRunArgs(args, io);
  const loaded = loadFleetFile(parsed.fleetPath);
  if ('error' in loaded) {
    io.err(loaded.error);
    return EXIT.usage;
  }
  return withApp(parsed.dataDir, io, (app) => runAndShow(app, parsed, loaded.fleet, io, options));
}

/** What `fleetscope run` asks the app's run service for. */
function launchRequest(parsed: RunArgs, fleet: Fleet): LaunchRequest {
  const overrides = {
    ...(parsed.baseUrl !== undefined ? { baseUrl: parsed.baseUrl } : {}),
    ...(parsed.model !== undefined ? { model: parsed.model } : {}),
    ...(parsed.apiKeyEnv !== undefined ? { apiKeyEnv: parsed.apiKeyEnv } : {}),
  };
  return {
    source: { parsed: fleet },
    task: parsed.task,
    overrides,
    // The cap is the command's own flag; the app's Settings cap is for the app's runs.
    maxMessages: parsed.maxMessages ?? null,
    fileRoot: parsed.files ?? null,
    ...(parsed.idleTimeoutMs !== undefined ? { idleTimeoutMs: parsed.idleTimeoutMs } : {}),
  };
}

async function runAndShow(
  app: FleetscopeApp,
  parsed: RunArgs,
  fleet: Fleet,
  io: StreamingIO,
  options: RunCommandOptions,
): Promise<number> {
  const request = launchRequest(parsed, fleet);
  useOtlpEndpoint(app, parsed.otlpEndpoint, io);
  let handle: RunHandle;
  try {
    const prepared = app.runs.prepare(request);
    for (const line of prepared.keyDestinations) io.err(line);
    handle = app.runs.launch(request, prepared);
  } catch (error) {
    if (error instanceof AppError && (error.code === 'invalid-input' || error.code === 'forbidden')) {
      io.err(`The fleet cannot run with these options:\n  ${error.message}`);
      return EXIT.usage;
    }
    throw error;
  }
  for (const warning of handle.warnings) io.err(`warning: ${warning}`);
  const code = await watchRun(handle, parsed.json, io, options);
  await finishLiveExport(app, io);
  return code;
}

/** Shows a run's events as they arrive, answers its human questions, and returns the exit code. */
export async function watchRun(
  handle: RunHandle,
  json: boolean,
  io: StreamingIO,
  options: RunCommandOptions,
): Promise<number> {
  const view = json ? new JsonView(io) : new LiveView(io);
  let lastErrorCode: string | null = null;
  const humans = new HumanPrompter(handle, io, options.input ?? (() => process.stdin));
  const stopListening = handle.onDidEvent((event) => {
    if (event.kind === 'error') lastErrorCode = event.payload.code;
    view.show(event);
    if (event.kind === 'human.requested') humans.ask(event.payload.requestId, event.payload.prompt);
  });
  void io.interrupted.then(() => handle.stop());
  const summary = await handle.done;
  stopListening();
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
