import { FINAL_STATUSES, USER, type Fleet, type RunEvent, type SessionStatus } from '@shared/domain';
import { createModelClientFactory, ProviderError } from '../../llm';
import { AgentFailure, TurnAborted } from '../agents';
import { EventRecorder } from '../runtime/recorder';
import { SecretMasker } from '../runtime/secret-masker';
import { newId } from '../runtime/ids';
import { SessionState } from '../runtime/session-state';
import { createBuiltinTools, McpToolset } from '../tools';
import { HumanDesk, type HumanRequest } from './human-desk';
import { RunCancelled, RunControl } from './run-control';
import { secretsInUse } from './secrets';
import type { RunHandle, RunSummary, StartRunOptions } from './run-types';
import { RESUME, TeamRunner, type RuntimeServices, type TeamTask } from './team-runner';

type Ending = Pick<RunSummary, 'status' | 'stopReason' | 'detail'>;

/** Starts a run. Events go to `options.sink` and to listeners; nothing is emitted before the next microtask. */
export function startRun(options: StartRunOptions): RunHandle {
  return new RunSession(options);
}

class RunSession implements RunHandle {
  readonly sessionId: string;
  readonly warnings: readonly string[];
  done: Promise<RunSummary>;
  private currentStatus: SessionStatus = 'running';
  private readonly fleet: Fleet;
  private readonly recorder: EventRecorder;
  /** Masks the keys in use in everything the run hands out (events, summaries, open questions). */
  private readonly masker: SecretMasker;
  private readonly session: SessionState;
  private readonly humans: HumanDesk;
  private readonly services: RuntimeServices;
  private control: RunControl;
  private runner: TeamRunner | null = null;
  private lastOutputId: string | null = null;
  private released = false;

  constructor(private readonly options: StartRunOptions) {
    this.fleet = options.fleet;
    // The run's own registry: the given tools plus its MCP servers' (registered when they start).
    const tools = (options.tools ?? createBuiltinTools()).extend();
    this.warnings = options.warnings ?? [];
    if (options.resume && options.sessionId === undefined)
      throw new Error('Resuming a session needs its id (options.sessionId).');
    this.sessionId = options.sessionId ?? newId('ses');
    this.masker = new SecretMasker(
      secretsInUse(this.fleet, options.env ?? process.env, options.secrets ?? []),
    );
    const snapshot = options.resume?.snapshot;
    this.recorder = new EventRecorder(this.sessionId, options.sink, {
      masker: this.masker,
      ...(snapshot
        ? { lastSeq: snapshot.lastSeq, startT: Math.max(snapshot.lastT, options.resume?.startT ?? 0) }
        : {}),
    });
    this.session = new SessionState(this.recorder);
    if (snapshot) {
      this.session.restore(snapshot);
      this.lastOutputId = snapshot.lastOutputId;
    }
    this.control = this.newControl(options.startPaused ?? false);
    this.humans = new HumanDesk(this.recorder, (waiting) =>
      this.setStatus(waiting ? 'waiting-for-human' : this.control.isPaused ? 'paused' : 'running'),
    );
    this.services = {
      control: this.control,
      humans: this.humans,
      tools,
      fileRoot: options.fileRoot ?? null,
      pricer: options.pricer ?? null,
      approveAll: options.approveAll ?? false,
      onServerError: this.fleet.onToolServerError ?? 'continue',
      models:
        options.models ??
        createModelClientFactory({
          env: options.env ?? process.env,
          ...(options.address ? { address: options.address } : {}),
          ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
          ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        }),
    };
    this.watchSignal();
    this.done = this.execute(options.task, options.resume ? (options.resume.context ?? {}) : null);
  }

  get status(): SessionStatus {
    return this.currentStatus;
  }

  pause(): void {
    this.control.pause();
  }

  resume(): void {
    this.control.resume();
  }

  step(): Promise<void> {
    if (this.isFinal()) return Promise.resolve();
    return this.control.step();
  }

  stop(): void {
    this.control.cancel();
  }

  requestStop(): void {
    this.control.requestStop();
  }

  answer(requestId: string, text: string): boolean {
    return this.humans.answer(requestId, text);
  }

  pendingHumanRequests(): HumanRequest[] {
    return this.humans.list().map((request) => ({ ...request, prompt: this.masker.mask(request.prompt) }));
  }

  continueWith(task = '', context: Record<string, string> = {}): Promise<RunSummary> {
    if (!this.isFinal())
      return Promise.reject(new Error('The run has not finished yet; stop it or wait for it first.'));
    if (this.released)
      return Promise.reject(new Error('The run was released from memory; start a new run to go on.'));
    // Claimed at once, so a second continuation in the same tick is refused rather than run twice.
    this.currentStatus = 'running';
    this.control = this.newControl(false);
    this.services.control = this.control;
    this.watchSignal();
    this.done = this.execute(task, context);
    return this.done;
  }

  onDidEvent(listener: (event: RunEvent) => void): () => void {
    return this.recorder.onDidEvent(listener);
  }

  release(): void {
    if (!this.isFinal() || this.released) return;
    this.released = true;
    this.runner = null;
    this.recorder.clearListeners();
    this.options.signal?.removeEventListener('abort', this.onSignalAbort);
  }

  /** While the run goes, the caller's signal cancels it; a finished run lets go of the signal. */
  private watchSignal(): void {
    this.options.signal?.addEventListener('abort', this.onSignalAbort, { once: true });
  }

  private readonly onSignalAbort = () => this.stop();

  private isFinal(): boolean {
    return FINAL_STATUSES.includes(this.currentStatus);
  }

  private newControl(startPaused: boolean): RunControl {
    return new RunControl((status) => this.setStatus(status), startPaused);
  }

  private setStatus(status: SessionStatus): void {
    if (status === this.currentStatus || this.isFinal()) return;
    this.currentStatus = status;
    this.recorder.emit(null, { kind: 'session.status', payload: { status } });
  }

  /** Runs (or continues) the session; never rejects: a failure to record ends it as failed. */
  private async execute(task: string, continuation: Record<string, string> | null): Promise<RunSummary> {
    try {
      return await this.record(task, continuation);
    } catch (error) {
      this.currentStatus = 'failed';
      this.control.cancel();
      const reason = error instanceof Error ? error.message : String(error);
      return this.summary({
        status: 'failed',
        stopReason: 'error',
        detail: `The session could not be recorded: ${reason}`,
      });
    } finally {
      this.options.signal?.removeEventListener('abort', this.onSignalAbort);
    }
  }

  private async record(task: string, continuation: Record<string, string> | null): Promise<RunSummary> {
    // Let the caller subscribe to events before the first one is emitted.
    await Promise.resolve();
    this.currentStatus = 'running';
    if (continuation === null) {
      this.recorder.emit(null, {
        kind: 'session.started',
        payload: {
          title: this.options.title ?? (task.split('\n')[0] ?? '').slice(0, 80),
          task,
          fleetName: this.fleet.name,
          fleet: this.fleet,
          parentSessionId: this.options.parentSessionId ?? null,
          forkSeq: this.options.forkSeq ?? null,
        },
      });
    } else {
      this.recorder.emit(null, { kind: 'session.continued', payload: { task, context: continuation } });
    }
    if (this.control.isPaused) this.setStatus('paused');
    const toolset = new McpToolset(this.fleet);
    let ending: Ending;
    try {
      ending = (await this.openToolServers(toolset)) ?? (await this.runTeam(task, continuation));
    } finally {
      // Every server ends with the run (or continuation), whatever ended it.
      await toolset.close();
    }
    this.currentStatus = ending.status;
    this.recorder.emit(null, { kind: 'session.stopped', payload: { ...ending } });
    await this.recorder.settle();
    this.control.finishSteps();
    return this.summary(ending);
  }

  /**
   * Starts the MCP servers the agents use. A server that does not start is recorded as an error
   * and its tools answer with the reason; a tool an agent names that its server lacks ends the
   * run before any agent speaks (returned as the ending).
   */
  private async openToolServers(toolset: McpToolset): Promise<Ending | null> {
    if (toolset.empty) return null;
    this.options.onToolServers?.(toolset);
    const opening = await toolset.open(this.services.tools, this.control.signal);
    for (const problem of opening.failed)
      this.recorder.emit(null, {
        kind: 'error',
        payload: { code: 'tool-server', message: problem.message, messageId: null },
      });
    if (this.control.isCancelled)
      return { status: 'stopped', stopReason: 'cancelled', detail: 'The run was cancelled.' };
    if (opening.missing.length === 0) return null;
    const detail = `The fleet names tools its MCP servers do not have: ${opening.missing
      .map((problem) => problem.message)
      .join('; ')}.`;
    this.recorder.emit(null, {
      kind: 'error',
      payload: { code: 'tool-missing', message: detail, messageId: null },
    });
    return { status: 'failed', stopReason: 'error', detail };
  }

  private summary(ending: Ending): RunSummary {
    return {
      sessionId: this.sessionId,
      ...ending,
      detail: this.masker.mask(ending.detail),
      messageCount: this.session.messageCount,
      tokens: {
        prompt: this.session.tokens.prompt,
        completion: this.session.tokens.completion,
        total: this.session.tokens.prompt + this.session.tokens.completion,
      },
      durationMs: this.recorder.now(),
    };
  }

  /** The task message to send, or RESUME for a continuation that brings no new task. */
  private teamTask(task: string, continuation: Record<string, string> | null): TeamTask | typeof RESUME {
    const contextLines = Object.entries(continuation ?? {}).map(([key, value]) => `${key}: ${value}`);
    const parts = [task.trim().length > 0 ? task : '', contextLines.join('\n')].filter((part) => part !== '');
    if (continuation !== null && parts.length === 0) return RESUME;
    // A continuation's task replies to where the conversation ended.
    return { content: parts.join('\n\n'), parentId: this.lastOutputId };
  }

  private async runTeam(task: string, continuation: Record<string, string> | null): Promise<Ending> {
    try {
      if (this.runner === null) {
        this.runner = new TeamRunner({
          fleet: this.fleet,
          scope: '',
          owner: USER,
          session: this.session,
          services: this.services,
        });
        const snapshot = this.options.resume?.snapshot;
        if (snapshot) this.runner.restore(snapshot.team, snapshot.conditionMessages);
      }
      const outcome = await this.runner.run(this.teamTask(task, continuation), this.control.signal);
      this.lastOutputId = outcome.output?.id ?? outcome.last?.id ?? this.lastOutputId;
      const status = outcome.stop.condition === 'external' ? 'stopped' : 'completed';
      return { status, stopReason: outcome.stop.condition, detail: outcome.stop.detail };
    } catch (error) {
      if (error instanceof RunCancelled || error instanceof TurnAborted || this.control.isCancelled) {
        return { status: 'stopped', stopReason: 'cancelled', detail: 'The run was cancelled.' };
      }
      if (error instanceof AgentFailure)
        return { status: 'failed', stopReason: 'error', detail: error.message };
      const code = error instanceof ProviderError ? error.code : 'internal';
      const detail =
        error instanceof ProviderError
          ? error.message
          : `Something went wrong inside the runtime: ${error instanceof Error ? error.message : String(error)}`;
      this.recorder.emit(null, { kind: 'error', payload: { code, message: detail, messageId: null } });
      return { status: 'failed', stopReason: 'error', detail };
    }
  }
}
