import { BROADCAST } from '@shared/domain';
import type { PatternProgress, PatternState, RoundPlan, TeamPattern } from './pattern';

/** A group chat: agents take turns in a fixed order, each broadcasting to all. */
export class RoundRobinPattern implements TeamPattern {
  private index = 0;

  constructor(private readonly order: readonly string[]) {}

  taskReceiver(): string {
    return BROADCAST;
  }

  reset(): void {}

  restore(progress: PatternProgress): void {
    this.index = progress.rounds;
  }

  async next(_state: PatternState): Promise<RoundPlan> {
    const name = this.order[this.index % this.order.length] as string;
    this.index += 1;
    return { type: 'round', speakers: [{ name, receiver: BROADCAST }] };
  }
}
