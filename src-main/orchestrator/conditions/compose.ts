import type { ConditionInput, StopResult, TerminationCondition } from './condition';

/**
 * Fires as soon as any part fires, naming every part that fired at that check ("max-messages and
 * text-mention"). Every part sees every check so their state stays current; once fired, the
 * result holds until reset.
 */
export class AnyCondition implements TerminationCondition {
  readonly label: string;
  private fired: StopResult | null = null;

  constructor(private readonly parts: readonly TerminationCondition[]) {
    this.label = `or(${parts.map((part) => part.label).join(', ')})`;
  }

  check(input: ConditionInput): StopResult | null {
    const results = this.parts.map((part) => part.check(input));
    if (this.fired !== null) return this.fired;
    const fired = results.filter((result) => result !== null);
    if (fired.length === 0) return null;
    this.fired = {
      condition: fired.map((result) => result.condition).join(' and '),
      detail: fired.map((result) => result.detail).join(' '),
    };
    return this.fired;
  }

  reset(now: number): void {
    this.fired = null;
    for (const part of this.parts) part.reset(now);
  }

  wakeAt(): number | null {
    return earliest(this.parts);
  }
}

/** Fires once every part has fired (each may fire at a different check) and names them all. */
export class AllCondition implements TerminationCondition {
  readonly label: string;

  constructor(private readonly parts: readonly TerminationCondition[]) {
    this.label = `and(${parts.map((part) => part.label).join(', ')})`;
  }

  check(input: ConditionInput): StopResult | null {
    const results = this.parts.map((part) => part.check(input));
    if (results.some((result) => result === null)) return null;
    const fired = results as StopResult[];
    return {
      condition: fired.map((result) => result.condition).join(' and '),
      detail: fired.map((result) => result.detail).join(' '),
    };
  }

  reset(now: number): void {
    for (const part of this.parts) part.reset(now);
  }

  wakeAt(): number | null {
    return earliest(this.parts);
  }
}

function earliest(parts: readonly TerminationCondition[]): number | null {
  let result: number | null = null;
  for (const part of parts) {
    const at = part.wakeAt();
    if (at !== null && (result === null || at < result)) result = at;
  }
  return result;
}
