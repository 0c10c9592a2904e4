import { BROADCAST } from '@shared/domain';
import type { PatternProgress, PatternState, RoundPlan, TeamPattern } from './pattern';
import { finished } from './pattern';

/** Fan-out: every worker answers the task at once, to the aggregator; fan-in: it answers the owner. */
export class ParallelPattern implements TeamPattern {
  private phase: 'workers' | 'aggregator' | 'done' = 'workers';

  constructor(
    private readonly workers: readonly string[],
    private readonly aggregator: string,
    private readonly owner: string,
  ) {}

  taskReceiver(): string {
    return BROADCAST;
  }

  reset(): void {
    this.phase = 'workers';
  }

  /** The workers' round comes first, then the aggregator's. */
  restore(progress: PatternProgress): void {
    const rounds = progress.roundsSinceReset;
    this.phase = rounds === 0 ? 'workers' : rounds === 1 ? 'aggregator' : 'done';
  }

  async next(_state: PatternState): Promise<RoundPlan> {
    switch (this.phase) {
      case 'workers':
        this.phase = 'aggregator';
        return { type: 'round', speakers: this.workers.map((name) => ({ name, receiver: this.aggregator })) };
      case 'aggregator':
        this.phase = 'done';
        return { type: 'round', speakers: [{ name: this.aggregator, receiver: this.owner }] };
      case 'done':
        return finished(`${this.aggregator} combined the answers of ${this.workers.join(', ')}.`);
    }
  }
}
