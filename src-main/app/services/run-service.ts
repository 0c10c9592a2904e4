import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AgentChange, FleetSource, ProviderId, ResumeCheck } from '@shared/contract';
import {
  checkFleetToRun,
  FleetInvalidError,
  fleetProviders,
  maskFleetSecrets,
  maskedSecretPlaces,
  isLiveStatus,
  type Fleet,
  type FleetToRun,
  type ProviderRef,
  type RunEvent,
  type SessionStatus,
  type TerminationSpec,
  type UsagePricer,
} from '@shared/domain';
import { createPricer, type HistoryStore, type OpenRunRequest, type RunRequestOutcome } from '../../history';
import type { SettingsStore } from '../../history/settings-store';
import {
  RunManager,
  applyProviderOverrides,
  type ProviderOverrides,
  type RunHandle,
} from '../../orchestrator/run';
import type { ToolRegistry } from '../../orchestrator/tools';
import { AppError } from '../handlers/errors';
import type { EventHub } from '../delivery/event-hub';
import type { FleetCatalog } from './fleet-catalog';
import type { ProviderPreset } from './fleet-changes';
import type { ProviderAddress } from '../../llm';
import { checkResume, nothingToSay, planResume, scriptedOnly } from './resume-plan';
import { askOwner, outcomeOf, RunRequestDesk } from './run-requests';

export interface RunServiceOptions {
  store: HistoryStore;
  hub: EventHub;
  settings: SettingsStore;
  catalog: FleetCatalog;
  env?: NodeJS.ProcessEnv;
  /** Why an agent's provider may not run or use its key (see ProviderService.providerProblem). */
  checkProvider?: (provider: ProviderRef) => string | null;
  /** Where each provider connects and sends its key (see ProviderService.address). */
  address?: ProviderAddress;
  /** Key values to mask in everything a run records or relays (vault keys included). */
  secrets?: () => string[];
  /** A provider preset from Settings (agents given a provider by id: imports, forks). */
  providerPreset?: (id: ProviderId) => ProviderPreset;
  /** A poll for requests from other processes failed (the store was busy). */
  onRequestError?: (error: unknown) => void;
  /** The tools every run offers (the composition root's one registry). */
  tools: ToolRegistry;
  /** How long a control waits for the process that drives the run, in ms (REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

/** A stored session to go on with (see RunService.resume). */
export interface ResumeRequest {
  sessionId: string;
  /** A follow-up task; empty resumes where the conversation stopped. */
  task?: string;
  context?: Record<string, string>;
  /** Providers for agents that have none (imports), or changed agent settings. */
  agents?: readonly AgentChange[];
  /** Go on with another fleet (its agents must include every agent that spoke). */
  fleet?: FleetSource | { parsed: Fleet };
  /**
   * Replaces every LLM agent's base URL, model or key variable (CLI flags). A base URL typed here
   * is where the person wants keys to go, so the Settings check is skipped, as for `run`.
   */
  overrides?: ProviderOverrides;
  fileRoot?: string | null;
  idleTimeoutMs?: number;
  /** Aborting it cancels the run like `stop()`. */
  signal?: AbortSignal;
}

/** Adds the user's per-session message cap (Settings) to a fleet's own termination. */
export function withMessageCap(fleet: Fleet, cap: number | null): Fleet {
  if (cap === null) return fleet;
  const capCondition: TerminationSpec = { type: 'max-messages', max: cap };
  return {
    ...fleet,
    termination: fleet.termination
      ? { type: 'or', conditions: [fleet.termination, capCondition] }
      : capCondition,
  };
}

/** A run to start: the fleet, the task, and how this surface wants it run. */
export interface LaunchRequest {
  source: FleetSource | { parsed: Fleet };
  task: string;
  title?: string;
  /** Replaces every LLM agent's base URL, model or key variable (CLI flags, API options). */
  overrides?: ProviderOverrides;
  /** Per-session message cap; default the one in Settings. */
  maxMessages?: number | null;
  /** Folder the read_file tool may read; default none. */
  fileRoot?: string | null;
  idleTimeoutMs?: number;
  /** Tool calls that need a person's approval run without asking (`--approve-all`). */
  approveAll?: boolean;
  /** Aborting it cancels the run like `stop()`. */
  signal?: AbortSignal;
}

/**
 * The fleet a launch runs, after the message cap and provider overrides, checked once for the
 * run (`checkFleetToRun`), with where keys go.
 */
export interface PreparedLaunch extends FleetToRun {
  /** One line per key variable and the address it is sent to. */
  keyDestinations: string[];
}

/**
 * The app's runs, for every surface (window, browser, CLI, API): starts them from saved fleets,
 * examples or fleet objects, relays their events to the hub as `run.events` packed per session
 * and per store commit (the runtime shows a commit's events in one synchronous burst; they leave
 * in a microtask, so the surfaces' per-frame batching is the only wait between a commit and a
 * client), and routes control and human answers.
 */
export class RunService {
  private readonly manager: RunManager;
  private readonly pending = new Map<string, RunEvent[]>();
  /** The last seq this service's runs recorded, per session (to notice appends by others). */
  private readonly lastSeqs = new Map<string, number>();
  /** Takes the requests other processes leave in the store for the runs this service drives. */
  private readonly desk: RunRequestDesk;
  private flushQueued = false;

  constructor(private readonly options: RunServiceOptions) {
    this.manager = new RunManager({
      sink: options.store,
      env: options.env ?? process.env,
      fileRoot: null,
      tools: options.tools,
      ...(options.address ? { address: options.address } : {}),
    });
    this.manager.onDidEvent((event) => this.enqueue(event));
    this.desk = new RunRequestDesk(
      options.store,
      (request) => this.takeRequest(request),
      () => this.active().length > 0,
      options.onRequestError,
    );
    // A store that cannot write stops every run at once (in-flight model requests are aborted):
    // nothing more they produce could be kept.
    options.store.onDidFault(() => {
      for (const handle of this.manager.list()) if (isLiveStatus(handle.status)) handle.stop();
    });
  }

  /** Every event of the runs this service drives (not of runs relayed from other processes). */
  onDidEvent(listener: (event: RunEvent) => void): () => void {
    return this.manager.onDidEvent(listener);
  }

  /** `folder`: where the agents' read_file may read (an existing absolute folder). */
  start(source: FleetSource, task: string, title?: string, folder?: string): { sessionId: string } {
    const request: LaunchRequest = { source, task, ...(title ? { title } : {}) };
    // The fleet first: an unknown fleet is "not found" whatever the folder says.
    const prepared = this.prepare(request);
    const fileRoot = folder === undefined ? null : sharedFolder(folder);
    const handle = this.launch({ ...request, fileRoot }, prepared);
    return { sessionId: handle.sessionId };
  }

  /**
   * Resolves and checks what a launch would run without starting it. A key goes only where its
   * provider in Settings points, unless the caller named the address itself (`overrides.baseUrl`:
   * a flag the person at the terminal typed); the result lists where every key goes.
   */
  prepare(request: LaunchRequest): PreparedLaunch {
    const cap =
      request.maxMessages === undefined
        ? this.options.settings.get().maxMessagesPerSession
        : request.maxMessages;
    const base = 'parsed' in request.source ? request.source.parsed : this.resolveFleet(request.source);
    // A marker a session recorded in place of a secret would reach the server as its value.
    const masked = maskedSecretPlaces(base);
    if (masked.length > 0) {
      throw new AppError(
        'invalid-input',
        `The fleet holds masked placeholders instead of its MCP servers' values (${masked.join(', ')}); enter them in the builder first.`,
      );
    }
    const fleet = withMessageCap(base, cap);
    const effective = applyProviderOverrides(fleet, request.overrides ?? {});
    const providers = fleetProviders(effective);
    if (request.overrides?.baseUrl === undefined) {
      for (const provider of providers) {
        const problem = this.options.checkProvider?.(provider);
        if (problem) throw new AppError('forbidden', problem);
      }
    }
    const keyDestinations = [
      ...new Set(
        providers.flatMap((provider) =>
          provider.apiKeyEnv ? [`key: ${provider.apiKeyEnv} is sent to ${this.addressOf(provider)}`] : [],
        ),
      ),
    ];
    return { ...this.checked(effective), keyDestinations };
  }

  /** The one check a fleet passes before it runs, as AppError invalid-input when it fails. */
  private checked(fleet: Fleet): FleetToRun {
    try {
      return checkFleetToRun(fleet, this.options.tools.names());
    } catch (error) {
      if (error instanceof FleetInvalidError) throw new AppError('invalid-input', error.message);
      throw error;
    }
  }

  /** Prices a run's model calls: Settings' overrides as they are when the run starts, then the table. */
  private pricer(): UsagePricer {
    return createPricer(this.options.settings.get().priceOverrides);
  }

  /** Starts a run and returns its handle (events also reach the hub as `run.events`). */
  launch(request: LaunchRequest, prepared: PreparedLaunch = this.prepare(request)): RunHandle {
    return this.driven(
      this.manager.start({
        fleet: prepared.fleet,
        warnings: prepared.warnings,
        task: request.task,
        ...(this.options.secrets ? { secrets: this.options.secrets() } : {}),
        pricer: this.pricer(),
        ...(request.title ? { title: request.title } : {}),
        ...(request.fileRoot !== undefined ? { fileRoot: request.fileRoot } : {}),
        ...(request.approveAll === true ? { approveAll: true } : {}),
        ...(request.idleTimeoutMs !== undefined ? { idleTimeoutMs: request.idleTimeoutMs } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      }),
    );
  }

  /**
   * Pauses, resumes, steps or stops a live run: one this service drives at once, one another
   * process drives (a `fleetscope run` in a terminal) through a request in the shared store.
   */
  async control(
    sessionId: string,
    action: 'pause' | 'resume' | 'step' | 'stop',
  ): Promise<{ sessionId: string; status: SessionStatus }> {
    const handle = this.liveHere(sessionId);
    if (!handle)
      return {
        sessionId,
        status: await askOwner(this.options.store, sessionId, action, null, this.options.requestTimeoutMs),
      };
    return { sessionId, status: this.controlHeld(handle, action) };
  }

  /** Answers a person's question to a live run, here or in the process that drives it. */
  async answer(
    sessionId: string,
    requestId: string,
    text: string,
  ): Promise<{ sessionId: string; status: SessionStatus }> {
    const handle = this.liveHere(sessionId);
    if (!handle)
      return {
        sessionId,
        status: await askOwner(
          this.options.store,
          sessionId,
          'answer',
          { requestId, text },
          this.options.requestTimeoutMs,
        ),
      };
    return { sessionId, status: this.answerHeld(handle, requestId, text) };
  }

  private controlHeld(handle: RunHandle, action: 'pause' | 'resume' | 'step' | 'stop'): SessionStatus {
    switch (action) {
      case 'pause':
        handle.pause();
        break;
      case 'resume':
        handle.resume();
        break;
      case 'step':
        void handle.step();
        break;
      case 'stop':
        handle.stop();
        break;
    }
    return handle.status;
  }

  private answerHeld(handle: RunHandle, requestId: string, text: string): SessionStatus {
    if (!handle.answer(requestId, text)) {
      throw new AppError('conflict', 'That question was already answered or the run has moved on.');
    }
    return handle.status;
  }

  /**
   * The run of `sessionId` while it is live here. A run held here that has ended may have gone on
   * in another process since: controls and requests go to that process.
   */
  private liveHere(sessionId: string): RunHandle | undefined {
    const handle = this.manager.get(sessionId);
    return handle && isLiveStatus(handle.status) ? handle : undefined;
  }

  /** A request another process left for a run live here; null when it is not (left to its owner). */
  private takeRequest(request: OpenRunRequest): RunRequestOutcome | null {
    const handle = this.liveHere(request.sessionId);
    if (!handle) return null;
    return outcomeOf(() => {
      if (request.kind !== 'answer') return this.controlHeld(handle, request.kind);
      const { requestId, text } = request.answer ?? { requestId: '', text: '' };
      return this.answerHeld(handle, requestId, text);
    });
  }

  /** A run started here: other processes' requests to it are taken from now on. */
  private driven(handle: RunHandle): RunHandle {
    this.desk.wake();
    return handle;
  }

  /** Sends a follow-up (or, with an empty task, resumes) a stored session that is not running. */
  continue(sessionId: string, task: string, context: Record<string, string>): { sessionId: string } {
    this.resume({ sessionId, task, context });
    return { sessionId };
  }

  /**
   * Goes on with any stored session that is not running: one this process still holds goes on in
   * memory; any other (finished, stopped, interrupted, from an earlier launch or another process,
   * an import once its agents have providers) is rebuilt from its events by the runtime fold and
   * appends to the same session, which this process then owns. Throws AppError (not-found,
   * conflict, read-only, invalid-input, forbidden).
   */
  resume(request: ResumeRequest): RunHandle {
    const { sessionId } = request;
    const store = this.options.store;
    const task = request.task ?? '';
    const context = request.context ?? {};
    const agents = request.agents ?? [];
    let stored = store.getSession(sessionId);
    if (!stored) throw new AppError('not-found', `No session with id "${sessionId}".`);
    if (stored.summary.readOnly) {
      throw new AppError(
        'read-only',
        'This session is read-only (imported); it never changes. Continuing it makes a fork (BranchService.continue).',
      );
    }
    const held = this.manager.get(sessionId);
    if (held && isLiveStatus(held.status)) {
      throw new AppError('conflict', 'The run is still going; stop it or wait for it to end first.');
    }
    // Settings' cap counts the whole session, every continuation included (a fleet's own
    // max-messages counts each run afresh).
    const cap = this.options.settings.get().maxMessagesPerSession;
    const capCheck = store.checkMessageCap(sessionId, cap);
    if (capCheck.reached) {
      throw new AppError(
        'conflict',
        `This session has ${capCheck.count} messages, and Settings stops a session at ${cap}; nothing was changed. Raise the limit in Settings to go on, or fork it.`,
      );
    }
    // A run this process still holds goes on in memory, unless its session changed elsewhere
    // since (another process continued it): then it goes on from the store like any other. With a
    // cap it goes on from the store too, where the continuation is given what is left of the cap,
    // and so does an all-scripted one, whose folded state tells whether anyone has lines left.
    const current = held !== undefined && this.lastSeqs.get(sessionId) === store.countEvents(sessionId);
    if (
      held &&
      current &&
      cap === null &&
      !scriptedOnly(stored.fleet) &&
      agents.length === 0 &&
      request.fleet === undefined &&
      !request.overrides
    ) {
      const undo = store.claimForContinuation(sessionId);
      if (undo === null) throw new AppError('conflict', 'The session is running; wait for it to end first.');
      held.continueWith(task, context).catch(() => undo());
      return this.driven(held);
    }
    if (held) this.manager.forget(sessionId);
    if (isLiveStatus(stored.summary.status)) {
      // Its process may be gone without anyone noticing yet.
      store.recoverInterrupted();
      stored = store.getSession(sessionId) ?? stored;
      if (isLiveStatus(stored.summary.status))
        throw new AppError(
          'conflict',
          'Another process is running this session; wait for it to end or stop it there.',
        );
    }
    const other = request.fleet
      ? 'parsed' in request.fleet
        ? request.fleet.parsed
        : this.resolveFleet(request.fleet)
      : undefined;
    const plan = planResume(
      store,
      stored.summary,
      stored.fleet,
      { agents, ...(other ? { fleet: other } : {}) },
      (id) => this.preset(id),
      this.options.tools.names(),
    );
    const silent = nothingToSay(plan.fleet, plan.snapshot);
    if (silent) throw new AppError('conflict', `${silent} Nothing was changed.`);
    const overrides = request.overrides ?? {};
    const fleet = applyProviderOverrides(plan.fleet, overrides);
    if (overrides.baseUrl === undefined) this.checkKeys(fleet);
    const runnable = this.withSecrets(fleet);
    const checked = this.checked(cap === null ? runnable : withMessageCap(runnable, cap - capCheck.count));
    // Claimed before anything is written: a second continuation, here or in another process, is refused.
    const undo = store.claimForContinuation(sessionId);
    if (undo === null) throw new AppError('conflict', 'The session is running; wait for it to end first.');
    // Recorded with its secrets masked, as the run records it; the run itself gets the real values.
    if (plan.fleetChanged || fleet !== plan.fleet) store.setRunFleet(sessionId, maskFleetSecrets(fleet));
    try {
      return this.driven(
        this.manager.start({
          fleet: checked.fleet,
          warnings: checked.warnings,
          task,
          sessionId,
          resume: { snapshot: plan.snapshot, context, startT: plan.startT },
          ...(this.options.secrets ? { secrets: this.options.secrets() } : {}),
          pricer: this.pricer(),
          ...(request.fileRoot !== undefined ? { fileRoot: request.fileRoot } : {}),
          ...(request.idleTimeoutMs !== undefined ? { idleTimeoutMs: request.idleTimeoutMs } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
        }),
      );
    } catch (error) {
      undo();
      throw error;
    }
  }

  /** The run of a session while this service drives it (or keeps it finished), else undefined. */
  handle(sessionId: string): RunHandle | undefined {
    return this.manager.get(sessionId);
  }

  /** Whether a stored session can go on now, and what it still needs. */
  resumeCheck(sessionId: string): ResumeCheck {
    const stored = this.options.store.getSession(sessionId);
    if (!stored) throw new AppError('not-found', `No session with id "${sessionId}".`);
    const held = this.manager.get(sessionId);
    return checkResume(stored.summary, stored.fleet, held !== undefined && isLiveStatus(held.status));
  }

  /** A provider preset from Settings (see RunServiceOptions.providerPreset). */
  preset(id: ProviderId): ProviderPreset {
    const preset = this.options.providerPreset?.(id);
    if (!preset) throw new AppError('unavailable', `Provider ${id} is not configured on this surface.`);
    return preset;
  }

  /** Where a provider connects (as the run will), or why it cannot, for the launch summary. */
  private addressOf(provider: ProviderRef): string {
    try {
      return this.options.address?.(provider) ?? provider.baseUrl ?? `no address (provider "${provider.id}")`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Refuses a fleet whose keys would go where their provider in Settings does not point. */
  checkKeys(fleet: Fleet): void {
    for (const provider of fleetProviders(fleet)) {
      const problem = this.options.checkProvider?.(provider);
      if (problem) throw new AppError('forbidden', problem);
    }
  }

  active(): Array<{ sessionId: string; status: SessionStatus }> {
    return this.manager
      .list()
      .filter((handle) => isLiveStatus(handle.status))
      .map((handle) => ({ sessionId: handle.sessionId, status: handle.status }));
  }

  /** Cancels every run and delivers what is still queued. */
  async dispose(): Promise<void> {
    this.desk.dispose();
    await this.manager.stopAll();
    this.flush();
  }

  /**
   * A session's fleet recorded its MCP servers' env and header values as markers: the run gets
   * them back from the saved fleet of the same name. Throws invalid-input when one is not there.
   */
  private withSecrets(fleet: Fleet): Fleet {
    const restored = this.options.catalog.withSavedSecrets(fleet);
    const missing = maskedSecretPlaces(restored);
    if (missing.length === 0) return restored;
    throw new AppError(
      'invalid-input',
      `The session recorded its MCP servers' secrets masked (${missing.join(', ')}) and no saved fleet named "${fleet.name}" has them; choose a fleet to go on with.`,
    );
  }

  /** A fleet to run, read for its shape only: its rules are checked once it is ready to run. */
  private resolveFleet(source: FleetSource): Fleet {
    if ('fleetId' in source) return this.options.catalog.toRun(source.fleetId);
    if ('example' in source) return this.options.catalog.toRun(source.example);
    return this.options.catalog.shape(source.fleet);
  }

  private enqueue(event: RunEvent): void {
    this.lastSeqs.set(event.sessionId, event.seq);
    if (event.kind === 'session.stopped' && this.lastSeqs.size > 256) {
      // Only runs still held need it: released ones go on from the store.
      for (const id of this.lastSeqs.keys()) if (!this.manager.get(id)) this.lastSeqs.delete(id);
    }
    const queue = this.pending.get(event.sessionId);
    if (queue) queue.push(event);
    else this.pending.set(event.sessionId, [event]);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    for (const [sessionId, events] of this.pending)
      this.options.hub.emit('run.events', { sessionId, events });
    this.pending.clear();
  }
}

/** A folder to share for reading, checked: absolute, existing, a folder. Bad input changes nothing. */
function sharedFolder(folder: string): string {
  if (!isAbsolute(folder)) {
    throw new AppError(
      'invalid-input',
      `The folder to share must be a full path (like /home/me/notes), not "${folder}".`,
    );
  }
  let stats;
  try {
    stats = statSync(folder);
  } catch {
    throw new AppError('invalid-input', `There is no folder "${folder}" on this machine.`);
  }
  if (!stats.isDirectory()) throw new AppError('invalid-input', `"${folder}" is a file, not a folder.`);
  return folder;
}
