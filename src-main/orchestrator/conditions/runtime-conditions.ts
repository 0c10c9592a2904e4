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
