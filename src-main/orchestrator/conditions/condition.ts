import type { Message } from '@shared/domain';

/** Which condition ended a run and a sentence saying why. */
export interface StopResult {
  /** The condition's type, e.g. `max-messages`; composites name every fired part: `max-messages and text-mention`. */
  condition: string;
  detail: string;
}

export interface ConditionInput {
  /** Messages completed since the previous check (may be empty for a timer check). */
  messages: readonly Message[];
  /** Epoch milliseconds. */
  now: number;
  /** Set once someone asked the run to stop after the current turn. */
  externalStop: boolean;
}

/**
 * A small, stateful stop rule. Once it fires it stays fired until `reset`, which is what makes
 * AND meaningful (each part may fire at a different message).
 */
export interface TerminationCondition {
  readonly label: string;
  check(input: ConditionInput): StopResult | null;
  /** Forgets everything seen; `now` is epoch ms (timeouts start counting from it). */
  reset(now: number): void;
  /** Epoch ms at which a check could fire with no new messages, or null. */
  wakeAt(): number | null;
}

/** True when an envelope name is `source`, also inside nested teams (`team/source`). */
export function isFrom(from: string, source: string): boolean {
  return from === source || from.endsWith(`/${source}`);
}

/** Base for conditions that remember whether they fired. */
export abstract class LatchingCondition implements TerminationCondition {
  private fired: StopResult | null = null;
  abstract readonly label: string;

  check(input: ConditionInput): StopResult | null {
    if (this.fired === null) this.fired = this.evaluate(input);
    return this.fired;
  }

  reset(now: number): void {
    this.fired = null;
    this.restart(now);
  }

  wakeAt(): number | null {
    return null;
  }

  protected abstract evaluate(input: ConditionInput): StopResult | null;
  protected abstract restart(now: number): void;
}
