import { BROADCAST, USER } from '@shared/domain';
import type { PatternState, RoundPlan, TeamPattern } from './pattern';

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

  async next(state: PatternState): Promise<RoundPlan> {
    const handoff = [...state.recent].reverse().find((message) => message.kind === 'handoff');
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
