import { ERROR_CODES, type ErrorCode } from '@shared/contract';
import { isLiveStatus, type SessionStatus } from '@shared/domain';
import {
  isLocked,
  type HistoryStore,
  type OpenRunRequest,
  type RunRequestKind,
  type RunRequestOutcome,
} from '../../history';
import { AppError, toAppError } from '../handlers/errors';

/** How often a process that drives runs reads the store for requests to them, in ms. */
export const REQUEST_POLL_MS = 100;
/**
 * How long a requester waits for a living owner to handle its request, in ms. An owner whose
 * event loop a loaded machine starves polls late (seconds at a load of 15 on two cores); an owner
 * whose process is gone is noticed within OWNER_CHECK_MS instead.
 */
export const REQUEST_TIMEOUT_MS = 10_000;
/** How often a requester reads whether its request was handled, in ms. */
const OUTCOME_POLL_MS = 20;
/** How often a waiting requester checks that the owner's process still exists, in ms. */
const OWNER_CHECK_MS = 250;
/** Handled requests whose requester never read them are deleted after this many ms. */
const HANDLED_KEPT_MS = 60_000;
/** Polls between deletions of unread handled requests. */
const SWEEP_EVERY = 100;

/**
 * The owning side: while this process drives live runs, it reads the store every REQUEST_POLL_MS
 * for requests other processes left for them, applies each with `apply` and records the outcome.
 * `apply` returns null for a request that is not for a run this process holds (left to its owner).
 */
export class RunRequestDesk {
  private timer: NodeJS.Timeout | null = null;
  private polls = 0;

  constructor(
    private readonly store: HistoryStore,
    private readonly apply: (request: OpenRunRequest) => RunRequestOutcome | null,
    private readonly drivesLiveRuns: () => boolean,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Starts polling (a run started here); it stops by itself once no run here is live. */
  wake(): void {
    if (this.timer) return;
    // Not unref'd: it keeps the process alive while it drives live runs. A run paused from
    // another process has nothing else pending in a `fleetscope run` (no stream, no prompt), and
    // without it Node would exit (code 13, its top-level await unsettled) before the resume came.
    this.timer = setInterval(() => this.poll(), REQUEST_POLL_MS);
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass: every open request for a run held here is applied and settled. */
  poll(): void {
    try {
      for (const request of this.store.runRequests.open()) {
        const outcome = this.apply(request);
        if (outcome) this.store.runRequests.settle(request.id, outcome);
      }
      if (++this.polls % SWEEP_EVERY === 0) this.store.runRequests.removeHandledOlderThan(HANDLED_KEPT_MS);
    } catch (error) {
      // A busy store misses one poll; the requester waits longer than a few polls.
      this.onError(error);
    }
    if (!this.drivesLiveRuns()) this.dispose();
  }
}

/** The result of `apply` for a request: the run's status, or the AppError it threw as a failure. */
export function outcomeOf(run: () => SessionStatus): RunRequestOutcome {
  try {
    return { ok: true, status: run() };
  } catch (error) {
    const failure = toAppError(error);
    if (failure instanceof AppError) return { ok: false, code: failure.code, message: failure.message };
    const reason = failure instanceof Error ? failure.message : String(failure);
    return { ok: false, code: 'internal', message: `The run could not take the request: ${reason}` };
  }
}

/**
 * The requesting side: carries `kind` to the process that drives `sessionId` through the store
 * and waits for it to be handled, at most `timeoutMs`. Resolves to the run's status after it;
 * rejects with an AppError: not-found (no such session, or no run in progress), read-only (a
 * trace or import being written has no run), unavailable (the owning process is gone or did not
 * answer in time), or the owner's own refusal (e.g. conflict for a question already answered).
 * Only an owner whose process no longer exists is said to have ended (noticed within
 * OWNER_CHECK_MS); a living one that is slow gets the whole `timeoutMs`.
 */
export async function askOwner(
  store: HistoryStore,
  sessionId: string,
  kind: RunRequestKind,
  answer: OpenRunRequest['answer'] = null,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<SessionStatus> {
  const stored = store.getSession(sessionId);
  if (!stored) throw new AppError('not-found', `No session with id "${sessionId}".`);
  if (!isLiveStatus(stored.summary.status))
    throw new AppError('not-found', `No run in progress for session "${sessionId}".`);
  if (stored.summary.readOnly)
    throw new AppError(
      'read-only',
      'This session is being recorded from outside (a trace or an import); it has no run to control.',
    );
  const requests = store.runRequests;
  const owner = requests.owner(sessionId);
  if (!owner || !owner.alive) {
    // Its process is gone: mark it interrupted now rather than at the next sweep.
    store.recoverInterrupted();
    throw new AppError(
      'unavailable',
      `The process that ran this session${owner ? ` (pid ${owner.pid})` : ''} has ended; the run can no longer be controlled.`,
    );
  }
  if (owner.self) throw new AppError('not-found', `No run in progress for session "${sessionId}".`);
  // A living owner frozen inside a write transaction (stopped, swapped out) holds the store's
  // write lock: the request cannot be left or taken back, and the owner has not answered.
  const unlessFrozen = <T>(write: () => T): T => {
    try {
      return write();
    } catch (error) {
      if (isLocked(error)) throw unanswered(store, sessionId, owner.pid, false, timeoutMs);
      throw error;
    }
  };
  const id = unlessFrozen(() => requests.post(sessionId, kind, answer));
  const deadline = Date.now() + timeoutMs;
  let nextOwnerCheck = Date.now() + OWNER_CHECK_MS;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, OUTCOME_POLL_MS));
    let outcome = requests.outcome(id);
    const now = Date.now();
    if (outcome === null && (now >= nextOwnerCheck || now >= deadline)) {
      nextOwnerCheck = now + OWNER_CHECK_MS;
      // Only a process that no longer exists is judged ended; a living one is waited for.
      const gone = !(requests.owner(sessionId)?.alive ?? false);
      if ((gone || now >= deadline) && unlessFrozen(() => requests.withdraw(id)))
        throw unanswered(store, sessionId, owner.pid, gone, timeoutMs);
      // Not withdrawn: it was handled meanwhile, and its outcome stands.
      outcome = requests.outcome(id);
    }
    if (outcome === null) continue;
    if (outcome === undefined) throw new AppError('not-found', `No session with id "${sessionId}".`);
    requests.remove(id);
    if (outcome.ok) return outcome.status;
    const code = (ERROR_CODES as readonly string[]).includes(outcome.code)
      ? (outcome.code as ErrorCode)
      : 'internal';
    throw new AppError(code, outcome.message);
  }
}

/** Why a withdrawn request was not handled: the run ended, its process ended, or it was slow. */
function unanswered(
  store: HistoryStore,
  sessionId: string,
  pid: number,
  gone: boolean,
  timeoutMs: number,
): AppError {
  const status = store.getSession(sessionId)?.summary.status;
  if (status === undefined || !isLiveStatus(status))
    return new AppError('not-found', `No run in progress for session "${sessionId}".`);
  if (!gone)
    return new AppError(
      'unavailable',
      `The process running this session (pid ${pid}) is running but did not answer within ${timeoutMs / 1000} s (the machine may be busy); try again.`,
    );
  store.recoverInterrupted();
  return new AppError(
    'unavailable',
    `The process running this session (pid ${pid}) has ended; the run can no longer be controlled.`,
  );
}
