import type { AgentSpec } from '@shared/domain';
import type { Agent, TurnContext } from './agent';

/** A person in the team: their turn waits for an answer given through the contract or the CLI. */
export class HumanAgent implements Agent {
  constructor(readonly spec: AgentSpec) {}

  reset(): void {}

  async turn(context: TurnContext): Promise<void> {
    const prompt = context.trigger
      ? `${context.trigger.from}: ${context.trigger.content}`
      : `${this.spec.name}, it is your turn.`;
    const text = await context.askHuman(prompt);
    context.send({ kind: 'text', content: text });
  }
}
