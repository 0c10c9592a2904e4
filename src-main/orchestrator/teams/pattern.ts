import type { Message } from '@shared/domain';
import type { StopResult } from '../conditions';

/** One agent's turn in a round: who speaks, to whom by default, and whom it may hand off to. */
export interface Speaker {
  name: string;
  receiver: string;
  handoffTargets?: readonly string[];
}

/** The next round (speakers run concurrently), or the team is done. */
export type RoundPlan = { type: 'round'; speakers: Speaker[] } | { type: 'done'; stop: StopResult };

export interface PatternState {
  /** Messages completed since the previous plan (the task, or the last round's output). */
  recent: readonly Message[];
  /** Every message of this team so far. */
  history: readonly Message[];
  /** Member name of the previous round's (last) speaker. */
  lastSpeaker: string | null;
  signal: AbortSignal;
}

/**
 * Where a team stands in its turn order, as a session's events tell it (see resume/runtime-fold):
 * enough for every pattern to take up its place again.
 */
export interface PatternProgress {
  /** Rounds planned since the session started. */
  rounds: number;
  /** Rounds planned since the pattern was last reset (a run or a continuation with a task). */
  roundsSinceReset: number;
  /** Swarm: the member that holds the floor. */
  floor: string | null;
}

/** Who speaks next: the only thing that differs between team patterns. */
export interface TeamPattern {
  /** Receiver of the task message: a member or `*`. */
  taskReceiver(): string;
  next(state: PatternState): Promise<RoundPlan>;
  /** Called at the start of every run and continuation that brings a task. */
  reset(): void;
  /** Takes up the place `progress` describes (a resumed or forked session). */
  restore(progress: PatternProgress): void;
}

export function finished(detail: string): RoundPlan {
  return { type: 'done', stop: { condition: 'team-finished', detail } };
}
