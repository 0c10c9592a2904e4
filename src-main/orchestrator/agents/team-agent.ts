import type { AgentSpec, Fleet, Message } from '@shared/domain';
import type { Agent, TurnContext } from './agent';

/** How a nested team ended: why, and what it said last to its owner. */
export interface NestedOutcome {
  stop: { condition: string; detail: string };
  output: Message | null;
}

/** Runs a nested fleet as one turn; provided by the runtime so agents do not import teams. */
export type NestedTeamRunner = (
  fleet: Fleet,
  context: TurnContext,
  task: { content: string; parentId: string | null },
) => Promise<NestedOutcome>;

/**
 * A team used as an agent: its turn runs the nested fleet on the message that prompted it, and
 * its reply is what the nested team finally said (a `result` message).
 */
export class TeamAgent implements Agent {
  constructor(
    readonly spec: AgentSpec,
    private readonly runNested: NestedTeamRunner,
  ) {}

  reset(): void {}

  async turn(context: TurnContext): Promise<void> {
    const fleet = this.spec.fleet;
    if (!fleet) throw new Error(`Team agent ${this.spec.name} has no nested fleet.`);
    const task = context.trigger?.content ?? '';
    const outcome = await this.runNested(fleet, context, {
      content: task,
      parentId: context.trigger?.id ?? null,
    });
    context.send({
      kind: 'result',
      content: outcome.output?.content ?? `(${this.spec.name} ended without a reply: ${outcome.stop.detail})`,
      meta: { nestedStop: outcome.stop.condition },
    });
  }
}
