import type { MessageKind } from '@shared/domain';
import { type ConditionInput, isFrom, LatchingCondition, type StopResult } from './condition';

/** Tool-call requests (`function`) and tool results (`tool`): steps inside a turn, not chat. */
const TOOL_EVENT_KINDS: ReadonlySet<MessageKind> = new Set(['function', 'tool']);

/**
 * Counts chat messages (the task and what agents say); tool-call requests and tool results count
 * only with `countToolEvents`. The runtime checks at turn ends, so a turn that crosses the limit
 * finishes first and the count can end above `max`.
 */
export class MaxMessagesCondition extends LatchingCondition {
  readonly label = 'max-messages';
  private count = 0;

  constructor(
    private readonly max: number,
    private readonly countToolEvents = false,
  ) {
    super();
  }

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    for (const message of messages)
      if (this.countToolEvents || !TOOL_EVENT_KINDS.has(message.kind)) this.count += 1;
    if (this.count < this.max) return null;
    const what = this.countToolEvents ? 'messages (tool calls and results included)' : 'messages';
    return { condition: this.label, detail: `The run reached its limit of ${this.max} ${what}.` };
  }

  protected restart(): void {
    this.count = 0;
  }
}

export class TextMentionCondition extends LatchingCondition {
  readonly label = 'text-mention';

  constructor(
    private readonly text: string,
    private readonly sources: readonly string[] | undefined,
  ) {
    super();
  }

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    const hit = messages.find(
      (message) =>
        message.content.includes(this.text) &&
        (this.sources === undefined || this.sources.some((source) => isFrom(message.from, source))),
    );
    return hit ? { condition: this.label, detail: `${hit.from} said "${this.text}".` } : null;
  }

  protected restart(): void {}
}

export class StopMessageCondition extends LatchingCondition {
  readonly label = 'stop-message';

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    const hit = messages.find((message) => message.kind === 'stop');
    return hit ? { condition: this.label, detail: `${hit.from} sent a stop message.` } : null;
  }

  protected restart(): void {}
}

export class SourceMatchCondition extends LatchingCondition {
  readonly label = 'source-match';

  constructor(private readonly sources: readonly string[]) {
    super();
  }

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    const hit = messages.find((message) => this.sources.some((source) => isFrom(message.from, source)));
    return hit ? { condition: this.label, detail: `${hit.from} replied.` } : null;
  }

  protected restart(): void {}
}

/** Fires on a handoff message to `target` (swarm transfers, scripted handoffs). */
export class HandoffCondition extends LatchingCondition {
  readonly label = 'handoff';

  constructor(private readonly target: string) {
    super();
  }

  protected evaluate({ messages }: ConditionInput): StopResult | null {
    const hit = messages.find((message) => message.kind === 'handoff' && isFrom(message.to, this.target));
    return hit ? { condition: this.label, detail: `${hit.from} handed off to ${this.target}.` } : null;
  }

  protected restart(): void {}
}
