import { createInterface, type Interface } from 'node:readline';
import { parseArgs } from 'node:util';
import { toolsNeedingApproval, type Fleet } from '@shared/domain';
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
  /**
   * Messages the store holds for a session: a failed run's summary counts what was recorded,
   * not what the run produced (a full disk keeps fewer).
   */
  storedMessages?: (sessionId: string) => number;
}

const USAGE =
  'fleetscope run FLEET.json --task "..." [--json] [--base-url URL] [--model M] [--api-key-env VAR] ' +
  `[--data-dir DIR] [--max-messages N] [--files DIR] [--idle-timeout SECONDS] [--approve-all] ${OTLP_ENDPOINT_USAGE}`;

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
  approveAll: boolean;
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
      'approve-all': { type: 'boolean', default: false },
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
    approveAll: values['approve-all'],
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
  const approvals = parsed.approveAll ? [] : toolsNeedingApproval(loaded.fleet);
  const terminal = options.input !== undefined || process.stdin.isTTY === true;
  if (approvals.length > 0 && !terminal) {
    io.err(
      `This fleet asks a person to approve each call of ${approvals.join(', ')}, and there is no ` +
        'terminal to ask on. Run it in a terminal, or pass --approve-all to allow every call.',
    );
    return EXIT.usage;
  }
  return withApp(parsed.dataDir, io, (app) => runAndShow(app, parsed, loaded.fleet, io, options), true);
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
    // The command's own flag wins; without it the data folder's Settings cap holds, as it does
    // for the app's runs and for `continue` (undefined: the run service reads Settings).
    ...(parsed.maxMessages !== undefined ? { maxMessages: parsed.maxMessages } : {}),
    fileRoot: parsed.files ?? null,
    ...(parsed.approveAll ? { approveAll: true } : {}),
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
  const code = await watchRun(handle, parsed.json, io, { ...options, storedMessages: storedCount(app) });
  await finishLiveExport(app, io);
  return code;
}

/** Messages of a session as the store holds them (0 when its start could not be written). */
export function storedCount(app: FleetscopeApp): (sessionId: string) => number {
  return (sessionId) => app.store.getSession(sessionId)?.summary.messageCount ?? 0;
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
    if (event.kind === 'human.given') humans.answered(event.payload.requestId);
  });
  void io.interrupted.then(() => handle.stop());
  const ended = await handle.done;
  const summary =
    ended.status === 'failed' && options.storedMessages
      ? { ...ended, messageCount: options.storedMessages(ended.sessionId) }
      : ended;
  stopListening();
  humans.close();
  view.finish(summary);
  if (summary.status === 'failed')
    return lastErrorCode !== null && PROVIDER_ERROR_CODES.has(lastErrorCode) ? EXIT.provider : EXIT.failure;
  if (summary.stopReason === 'cancelled') return EXIT.failure;
  return EXIT.ok;
}

/**
 * Asks a person on the terminal for each human.requested, oldest first, one line each; stdin
 * closing while a question is open cancels the run. A question answered elsewhere (the app, on a
 * request through the shared store) is taken off the list, and the next line answers the next one.
 */
class HumanPrompter {
  private lines: Interface | null = null;
  private readonly open: Array<{ requestId: string; prompt: string }> = [];
  private ended = false;

  constructor(
    private readonly handle: RunHandle,
    private readonly io: CliIO,
    private readonly input: () => NodeJS.ReadableStream,
  ) {}

  ask(requestId: string, prompt: string): void {
    this.open.push({ requestId, prompt });
    if (this.ended) return this.cancel();
    if (this.open.length === 1) this.showNext();
    if (this.lines) return;
    this.lines = createInterface({ input: this.input(), terminal: false });
    this.lines.on('line', (line) => this.take(line));
    this.lines.on('close', () => {
      this.ended = true;
      if (this.open.length > 0) this.cancel();
    });
  }

  /** A question was answered (here or elsewhere): it is no longer asked. */
  answered(requestId: string): void {
    const index = this.open.findIndex((question) => question.requestId === requestId);
    if (index < 0) return;
    this.open.splice(index, 1);
    if (index === 0) {
      this.io.err('(Answered elsewhere.)\n');
      this.showNext();
    }
  }

  close(): void {
    this.ended = true;
    this.open.length = 0;
    this.lines?.close();
  }

  private take(line: string): void {
    const question = this.open.shift();
    if (!question) return;
    this.handle.answer(question.requestId, line);
    this.showNext();
  }

  private showNext(): void {
    const next = this.open[0];
    if (next) this.io.err(`\n${next.prompt}\nYour answer (one line): `);
  }

  private cancel(): void {
    if (this.open.length === 0) return;
    this.open.length = 0;
    this.io.err('No more input; cancelling the run.');
    this.handle.stop();
  }
}
