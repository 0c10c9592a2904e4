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

/** Who speaks next: the only thing that differs between team patterns. */
export interface TeamPattern {
  /** Receiver of the task message: a member or `*`. */
  taskReceiver(): string;
  next(state: PatternState): Promise<RoundPlan>;
  /** Called at the start of every run and continuation. */
  reset(): void;
}

export function finished(detail: string): RoundPlan {
  return { type: 'done', stop: { condition: 'team-finished', detail } };
}
