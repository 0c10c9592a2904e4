import { type ConditionInput, LatchingCondition, type StopResult } from './condition';

/** Total prompt + completion tokens of the messages seen since the last reset. */
export class TokenBudgetCondition extends LatchingCondition {
  readonly label = 'token-budget';
  private used = 0;

  constructor(private readonly maxTokens: number) {
    super();
  }

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    for (const message of messages)
      this.used += (message.usage?.prompt ?? 0) + (message.usage?.completion ?? 0);
    if (this.used < this.maxTokens) return null;
    return {
      condition: this.label,
      detail: `The run used ${this.used} tokens, over its budget of ${this.maxTokens}.`,
    };
  }

  protected restart(): void {
    this.used = 0;
  }
}

/**
 * Dollars of the priced model calls seen since the last reset (`usage.cost`, set as each call is
 * recorded). Calls without a known price add nothing, and the stop detail says how many there were.
 */
export class CostBudgetCondition extends LatchingCondition {
  readonly label = 'cost-budget';
  private cost = 0;
  private unpriced = 0;

  constructor(private readonly maxCost: number) {
    super();
  }

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    for (const message of messages) {
      const usage = message.usage;
      if (!usage) continue;
      if (typeof usage.cost === 'number') this.cost += usage.cost;
      else if (usage.prompt + usage.completion > 0) this.unpriced += 1;
    }
    if (this.cost < this.maxCost) return null;
    const unpriced = this.unpriced > 0 ? ` (and ${this.unpriced} calls without a price)` : '';
    return {
      condition: this.label,
      detail: `The run cost $${this.cost.toFixed(4)}${unpriced}, over its budget of $${this.maxCost}.`,
    };
  }

  protected restart(): void {
    this.cost = 0;
    this.unpriced = 0;
  }
}

/** Prompt + completion tokens per sending agent since the last reset; fires when one reaches the budget. */
export class AgentTokenBudgetCondition extends LatchingCondition {
  readonly label = 'agent-token-budget';
  private readonly used = new Map<string, number>();
  private readonly agents: ReadonlySet<string> | null;

  constructor(
    private readonly maxTokens: number,
    agents?: readonly string[],
  ) {
    super();
    this.agents = agents && agents.length > 0 ? new Set(agents) : null;
  }

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    for (const message of messages) {
      if (!message.usage || (this.agents && !this.agents.has(message.from))) continue;
      const used = (this.used.get(message.from) ?? 0) + message.usage.prompt + message.usage.completion;
      this.used.set(message.from, used);
      if (used >= this.maxTokens) {
        return {
          condition: this.label,
          detail: `${message.from} used ${used} tokens, over its budget of ${this.maxTokens}.`,
        };
      }
    }
    return null;
  }

  protected restart(): void {
    this.used.clear();
  }
}

/** Wall-clock limit counted from the last reset. */
export class TimeoutCondition extends LatchingCondition {
  readonly label = 'timeout';
  private startedAt = Date.now();

  constructor(private readonly seconds: number) {
    super();
  }

  override wakeAt(): number | null {
    return this.startedAt + this.seconds * 1000;
  }

  protected evaluate({ now }: ConditionInput): StopResult | null {
    if (now < this.startedAt + this.seconds * 1000) return null;
    return { condition: this.label, detail: `The run went past its time limit of ${this.seconds} s.` };
  }

  protected restart(now: number): void {
    this.startedAt = now;
  }
}

/** Fires when someone asked the run to stop after the current turn (RunHandle.requestStop). */
export class ExternalCondition extends LatchingCondition {
  readonly label = 'external';

  protected evaluate({ externalStop }: ConditionInput): StopResult | null {
    return externalStop ? { condition: this.label, detail: 'The run was asked to stop.' } : null;
  }

  protected restart(): void {}
}
