import type { PatternProgress, PatternState, RoundPlan, TeamPattern } from './pattern';
import { finished } from './pattern';

/** A pipeline: each agent speaks once, in order, to the next; the last one answers the owner. */
export class SequentialPattern implements TeamPattern {
  private index = 0;

  constructor(
    private readonly order: readonly string[],
    private readonly owner: string,
  ) {}

  taskReceiver(): string {
    return this.order[0] ?? this.owner;
  }

  reset(): void {
    this.index = 0;
  }

  restore(progress: PatternProgress): void {
    this.index = Math.min(progress.roundsSinceReset, this.order.length);
  }

  async next(_state: PatternState): Promise<RoundPlan> {
    const name = this.order[this.index];
    if (name === undefined)
      return finished(`Every agent of the pipeline spoke (${this.order.join(' -> ')}).`);
    this.index += 1;
    return { type: 'round', speakers: [{ name, receiver: this.order[this.index] ?? this.owner }] };
  }
}
