import { BROADCAST } from '@shared/domain';
import type { PatternState, RoundPlan, TeamPattern } from './pattern';
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
