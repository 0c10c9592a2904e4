import type { SessionStatus } from '@shared/domain';

/** The run was cancelled; whatever was in flight has been aborted. */
export class RunCancelled extends Error {
  constructor() {
    super('The run was cancelled.');
    this.name = 'RunCancelled';
  }
}

/**
 * Pause, resume, step and cancel for one session, shared by its nested teams. Teams call
 * `beforeRound` before each round: it waits while paused and throws RunCancelled once cancelled.
 */
export class RunControl {
  private readonly cancellation = new AbortController();
  private paused: boolean;
  /** Rounds allowed to run while paused (granted by step). */
  private steps = 0;
  private wake: (() => void) | null = null;
  private stepWaiters: Array<() => void> = [];
  externalStop = false;

  constructor(
    private readonly onStatus: (status: SessionStatus) => void,
    startPaused = false,
  ) {
    this.paused = startPaused;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get isCancelled(): boolean {
    return this.cancellation.signal.aborted;
  }

  pause(): void {
    if (this.paused || this.isCancelled) return;
    this.paused = true;
    this.onStatus('paused');
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.steps = 0;
    this.onStatus('running');
    this.release();
  }

  /** Lets one round run, then pauses again. Resolves when that round has finished. */
  step(): Promise<void> {
    if (!this.paused) this.pause();
    this.steps += 1;
    const done = new Promise<void>((resolve) => this.stepWaiters.push(resolve));
    this.release();
    return done;
  }

  cancel(): void {
    if (this.isCancelled) return;
    this.cancellation.abort();
    this.release();
    this.finishSteps();
  }

  /** Asks the run to end after the current turn (the `external` condition). */
  requestStop(): void {
    this.externalStop = true;
    this.release();
  }

  /** Waits while paused (unless a step was granted or `shouldExit` turns true); throws once cancelled. */
  async beforeRound(shouldExit: () => boolean = () => false): Promise<void> {
    while (this.paused && this.steps === 0 && !this.isCancelled && !this.externalStop && !shouldExit()) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    if (this.isCancelled) throw new RunCancelled();
    if (this.paused && this.steps > 0) {
      this.steps -= 1;
      this.onStatus('running');
    }
  }

  afterRound(): void {
    if (this.paused) {
      this.onStatus('paused');
      this.finishSteps(1);
    }
  }

  /** Wakes a waiting beforeRound so it re-checks its exit condition. */
  nudge(): void {
    this.release();
  }

  /** Resolves pending step() promises (all when the run ends). */
  finishSteps(count = Infinity): void {
    const done = this.stepWaiters.splice(0, count === Infinity ? this.stepWaiters.length : count);
    for (const resolve of done) resolve();
  }

  private release(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
