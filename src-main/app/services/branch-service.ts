import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type {
  Compare,
  CompareExportFormat,
  ComparePair,
  Family,
  ForkChange,
  ForkResult,
  ParsedInput,
} from '@shared/contract';
import { isLiveStatus, validateFleet, type Fleet } from '@shared/domain';
import type { HistoryStore } from '../../history';
import { exportComparison, Redactor, writeComparison } from '../../interop/export';
import { runnableFleet, storedFleet } from './resume-plan';
import { SessionComparer } from './compare';
import { AppError } from '../handlers/errors';
import { applyAgentChanges, replaceTermination, unmappedAgents } from './fleet-changes';
import type { ResumeRequest, RunService } from './run-service';
import type { RunHandle } from '../../orchestrator';
import { withMessageCap } from './run-service';
import type { SettingsStore } from '../../history/settings-store';

export interface BranchServiceOptions {
  store: HistoryStore;
  runs: RunService;
  settings: SettingsStore;
  dataDir: string;
  /** Where key variables are resolved, so exports can mask their values. */
  env: NodeJS.ProcessEnv;
  /** Names of the tools agents may use (fleet validation). */
  toolNames: readonly string[];
}

/** How a fork that runs at once is run (the CLI's provider flags and timeouts). */
export type ForkRunOptions = Pick<ResumeRequest, 'overrides' | 'fileRoot' | 'idleTimeoutMs' | 'signal'>;

/** Pairs written per page when a comparison is exported. */
const EXPORT_PAGE = 200;

/** A short label from what a fork changed (the tree shows it at the fork point). */
export function labelOf(changes: readonly ForkChange[]): string {
  return changes.length === 0 ? 'same as parent' : changes.map((change) => change.summary).join('; ');
}

/** Forks, families and comparisons of stored sessions, for every surface. */
export class BranchService {
  private readonly comparer: SessionComparer;

  constructor(private readonly options: BranchServiceOptions) {
    this.comparer = new SessionComparer(options.store);
  }

  /**
   * Forks a session at a message (see HistoryStore.createFork) with the requested edits, and
   * runs the fork on unless `run` is false. A refused fork leaves the store as it was: one that
   * is not run is checked before it is written; one that runs is checked by the run (the fleet
   * check every run passes once, RunService.resume) and deleted again when the run refuses it.
   */
  fork(input: ParsedInput<'branches.fork'>, run: ForkRunOptions = {}): ForkResult {
    const goOn = input.run ? (sessionId: string) => this.options.runs.resume({ sessionId, ...run }) : null;
    return this.forkThen(input, goOn).result;
  }

  /**
   * Forks as `fork` describes; with `goOn`, the fork goes on at once through it, which checks the
   * fleet as every run does, and is deleted again when it throws. Without, the fleet is checked
   * here before it is written (agents may still lack providers).
   */
  private forkThen(
    input: ParsedInput<'branches.fork'>,
    goOn: ((sessionId: string) => RunHandle) | null,
  ): { result: ForkResult; handle: RunHandle | null } {
    const { store, runs } = this.options;
    const parentId = store.resolveSessionId(input.sessionId);
    const parent = store.getSession(parentId);
    if (!parent) throw new AppError('not-found', `No session with id "${input.sessionId}".`);
    // Before anything is read from its messages: a live session's latest ones may still be on
    // their way to the store (group commits), and a fork needs a session that stopped anyway.
    if (isLiveStatus(parent.summary.status))
      throw new AppError(
        'invalid-input',
        'The session is still running; stop it (or wait for it to end) before forking it.',
      );
    const stored = storedFleet(parent.fleet);
    if (stored === null) throw new AppError('invalid-input', 'This session has no fleet to fork with.');
    const base = runnableFleet(stored, parent.summary.source !== 'live', this.options.toolNames);
    const original = store.messageAt(parentId, input.atMessage);
    if (original === null) {
      const count = store.countMessages(parentId);
      throw new AppError(
        'invalid-input',
        `The session has ${count} message${count === 1 ? '' : 's'}; there is no message ${input.atMessage}.`,
      );
    }
    const applied = applyAgentChanges(base, input.agents, (id) => runs.preset(id));
    let fleet: Fleet = applied.fleet;
    const changes: ForkChange[] = [];
    if (input.text !== undefined && input.text !== original.content) {
      changes.push({
        field: 'text',
        agent: original.from === 'user' ? null : original.from,
        summary: `message ${input.atMessage} edited`,
      });
    }
    changes.push(...applied.changes);
    if (input.termination !== undefined) {
      const replaced = replaceTermination(fleet, input.termination);
      fleet = withMessageCap(replaced.fleet, this.options.settings.get().maxMessagesPerSession);
      changes.push(replaced.change);
    }
    if (input.run) {
      const unmapped = unmappedAgents(fleet);
      if (unmapped.length > 0) {
        throw new AppError(
          'invalid-input',
          `The fork cannot run until its agents have providers: give ${unmapped.join(', ')} a provider (or create it without running).`,
        );
      }
    }
    if (goOn === null) {
      // Agents without a provider (an import's) are allowed until the fork runs.
      const errors = validateFleet(fleet, { knownTools: this.options.toolNames }).filter(
        (issue) => issue.severity === 'error' && !issue.path.endsWith('.provider'),
      );
      if (errors.length > 0) {
        throw new AppError(
          'invalid-input',
          `The fork's fleet is invalid: ${errors.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
        );
      }
    }
    const created = store.createFork({
      parentId,
      atMessage: input.atMessage,
      ...(input.text !== undefined ? { text: input.text } : {}),
      fleet,
      ...(input.title !== undefined ? { title: input.title } : {}),
      changes,
    });
    let handle: RunHandle | null = null;
    try {
      handle = goOn?.(created.sessionId) ?? null;
    } catch (error) {
      store.deleteSession(created.sessionId);
      throw error;
    }
    const result: ForkResult = {
      sessionId: created.sessionId,
      forkOf: { sessionId: parentId, atMessage: input.atMessage },
      label: labelOf(changes),
      changes,
      running: input.run,
    };
    return { result, handle };
  }

  /**
   * Continues a stored session (see RunService.resume). A read-only session (an import) never
   * changes: it is forked at its last message and the fork goes on. When the fork cannot run
   * (no providers yet, a key refused, nothing to say), it is deleted again: a refusal changes
   * nothing.
   */
  continue(request: ResumeRequest): { sessionId: string; handle: RunHandle; forkOf: string | null } {
    const { store, runs } = this.options;
    const sessionId = store.resolveSessionId(request.sessionId);
    const stored = store.getSession(sessionId);
    if (!stored?.summary.readOnly)
      return { sessionId, handle: runs.resume({ ...request, sessionId }), forkOf: null };
    const count = store.countMessages(sessionId);
    if (count === 0)
      throw new AppError('invalid-input', 'This imported session has no message to continue from.');
    const fleet = storedFleet(stored.fleet);
    const unmapped = fleet
      ? unmappedAgents(
          applyAgentChanges(runnableFleet(fleet, true, this.options.toolNames), request.agents ?? [], (id) =>
            runs.preset(id),
          ).fleet,
        )
      : [];
    if (unmapped.length > 0 && request.fleet === undefined)
      throw new AppError(
        'read-only',
        `This imported session cannot go on until its agents have providers: give ${unmapped.join(', ')} a provider (or choose a fleet).`,
      );
    const fork = this.forkThen(
      { sessionId, atMessage: count, agents: [...(request.agents ?? [])], run: false },
      (forkId) => runs.resume({ ...request, sessionId: forkId, agents: [] }),
    );
    if (fork.handle === null) throw new Error('A continued fork goes on at once.');
    return { sessionId: fork.result.sessionId, handle: fork.handle, forkOf: sessionId };
  }

  /** Forgets the comparisons worked out so far (a bench measures opening one cold). */
  forgetComparisons(): void {
    this.comparer.forgetFrames();
  }

  family(id: string): Family {
    const store = this.options.store;
    return store.family(store.resolveSessionId(id));
  }

  compare(a: string, b: string, offset: number, limit: number): Compare {
    const store = this.options.store;
    return this.comparer.compare(store.resolveSessionId(a), store.resolveSessionId(b), offset, limit);
  }

  /** Writes the comparison of two sessions to `target` (a file path, atomically, or a stream). */
  async exportCompare(
    a: string,
    b: string,
    format: CompareExportFormat,
    target: string | Writable,
  ): Promise<{ bytes: number; aId: string; bId: string }> {
    const store = this.options.store;
    const aId = store.resolveSessionId(a);
    const bId = store.resolveSessionId(b);
    const frame = this.comparer.frame(aId, bId);
    const redactor = new Redactor(
      [store.getSession(aId)?.fleet ?? null, store.getSession(bId)?.fleet ?? null],
      this.options.env,
    );
    const comparer = this.comparer;
    function* pairs(): Generator<ComparePair> {
      for (let offset = 0; offset < frame.totalPairs; offset += EXPORT_PAGE) {
        for (const pair of comparer.pairs(aId, bId, offset, EXPORT_PAGE, frame)) yield redactor.value(pair);
      }
    }
    const input = { frame: redactor.value(frame), pairs: pairs() };
    const result =
      typeof target === 'string'
        ? await exportComparison(input, format, target)
        : await writeComparison(input, format, target);
    return { bytes: result.bytes, aId, bId };
  }

  /** Exports a comparison into the data folder's exports/. */
  async exportCompareToFolder(
    a: string,
    b: string,
    format: CompareExportFormat,
  ): Promise<{ path: string; bytes: number; fileName: string }> {
    const store = this.options.store;
    const aId = store.resolveSessionId(a);
    const bId = store.resolveSessionId(b);
    const folder = join(this.options.dataDir, 'exports');
    mkdirSync(folder, { recursive: true });
    const fileName = `compare-${aId.replace(/^ses_/, '').slice(0, 8)}-${bId.replace(/^ses_/, '').slice(0, 8)}.${format}`;
    const path = join(folder, fileName);
    const { bytes } = await this.exportCompare(aId, bId, format, path);
    return { path, bytes, fileName };
  }
}
