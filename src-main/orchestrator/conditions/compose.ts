import type { ConditionInput, StopResult, TerminationCondition } from './condition';

/** Fires as soon as any part fires. Every part sees every check so their state stays current. */
export class AnyCondition implements TerminationCondition {
  readonly label: string;

  constructor(private readonly parts: readonly TerminationCondition[]) {
    this.label = `or(${parts.map((part) => part.label).join(', ')})`;
  }

  check(input: ConditionInput): StopResult | null {
    let first: StopResult | null = null;
    for (const part of this.parts) {
      const result = part.check(input);
      first ??= result;
    }
    return first;
  }

  reset(now: number): void {
    for (const part of this.parts) part.reset(now);
  }

  wakeAt(): number | null {
    return earliest(this.parts);
  }
}

/** Fires once every part has fired (each may fire at a different message). */
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
      condition: fired.map((result) => result.condition).join('+'),
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
