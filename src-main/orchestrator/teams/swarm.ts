import { BROADCAST, USER } from '@shared/domain';
import type { Message } from '@shared/domain';
import type { PatternProgress, PatternState, RoundPlan, TeamPattern } from './pattern';

/** The last handoff among `recent`, if any: the swarm's floor moves with it (or leaves the team). */
export function lastHandoff(recent: readonly Message[]): Message | undefined {
  return [...recent].reverse().find((message) => message.kind === 'handoff');
}

/**
 * Handoffs as tools: the current agent keeps the floor until it calls `transfer_to_<agent>` (or a
 * scripted reply hands off); a handoff to the user ends the team's run.
 */
export class SwarmPattern implements TeamPattern {
  private current: string;

  constructor(
    private readonly start: string,
    private readonly handoffs: Readonly<Record<string, readonly string[]>>,
    private readonly members: ReadonlySet<string>,
    private readonly memberName: (address: string) => string | null,
    private readonly owner: string,
  ) {
    this.current = start;
  }

  taskReceiver(): string {
    return BROADCAST;
  }

  reset(): void {}

  restore(progress: PatternProgress): void {
    if (progress.floor !== null && this.members.has(progress.floor)) this.current = progress.floor;
  }

  async next(state: PatternState): Promise<RoundPlan> {
    const handoff = lastHandoff(state.recent);
    if (handoff) {
      if (handoff.to === this.owner || handoff.to === USER) {
        return {
          type: 'done',
          stop: {
            condition: 'handoff',
            detail: `${handoff.from} handed the conversation back to ${handoff.to}.`,
          },
        };
      }
      const target = this.memberName(handoff.to);
      if (target !== null && this.members.has(target)) this.current = target;
    }
    return {
      type: 'round',
      speakers: [
        { name: this.current, receiver: BROADCAST, handoffTargets: this.handoffs[this.current] ?? [] },
      ],
    };
  }

  /** Restarting from scratch (a new session) begins at `start` again. */
  restart(): void {
    this.current = this.start;
  }
}
