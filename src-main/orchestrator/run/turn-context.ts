import {
  USER,
  type AgentStatus,
  type Draft,
  type EventBody,
  type Message,
  type ToolApproval,
} from '@shared/domain';
import type { TurnContext } from '../agents/agent';
import type { MessageBus, MessageOpening, MessageWriter } from '../runtime/bus';
import type { EventRecorder } from '../runtime/recorder';
import type { HumanDesk } from './human-desk';

export interface TurnContextOptions {
  name: string;
  receiver: string;
  handoffTargets: readonly string[];
  signal: AbortSignal;
  bus: MessageBus;
  recorder: EventRecorder;
  humans: HumanDesk;
  shouldStop(): boolean;
}

/** The runtime's side of an agent's turn: envelopes filled in, events attributed to the agent. */
export class RuntimeTurnContext implements TurnContext {
  readonly name: string;
  readonly address: string;
  readonly receiver: string;
  readonly trigger: Message | null;
  readonly signal: AbortSignal;
  readonly handoffTargets: readonly string[];
  /** The last status this turn recorded. */
  private status: AgentStatus | null = null;

  constructor(private readonly options: TurnContextOptions) {
    this.name = options.name;
    this.address = options.bus.qualify(options.name);
    this.receiver = options.receiver;
    this.trigger = options.bus.inbox(options.name).at(-1) ?? null;
    this.signal = options.signal;
    this.handoffTargets = options.handoffTargets;
  }

  history(): readonly Message[] {
    return this.options.bus.view(this.name);
  }

  open(opening: Partial<MessageOpening> = {}): MessageWriter {
    return this.options.bus.open(this.name, {
      to: opening.to ?? this.receiver,
      kind: opening.kind ?? 'text',
      parentId: opening.parentId !== undefined ? opening.parentId : (this.trigger?.id ?? null),
    });
  }

  send(draft: Omit<Draft, 'to'> & { to?: string }): Message {
    return this.options.bus.send(this.name, {
      ...draft,
      to: draft.to ?? this.receiver,
      parentId: draft.parentId !== undefined ? draft.parentId : (this.trigger?.id ?? null),
    });
  }

  handoff(target: string, content: string, parentId?: string | null): Message {
    const to = target === USER ? this.options.bus.owner : target;
    const message = this.send({
      to,
      kind: 'handoff',
      content,
      meta: { handoffFrom: this.address },
      parentId: parentId ?? this.trigger?.id ?? null,
    });
    this.emit({ kind: 'handoff', payload: { from: this.address, to: message.to, messageId: message.id } });
    return message;
  }

  emit(body: EventBody): void {
    this.options.recorder.emit(this.address, body);
  }

  /** Records the agent's status when it changes (setting the same status twice records it once). */
  setStatus(status: AgentStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.emit({ kind: 'agent.status', payload: { status } });
  }

  askHuman(prompt: string, approval?: ToolApproval): Promise<string> {
    // The desk records the agent as waiting: whatever status comes next is a change.
    this.status = null;
    return this.options.humans.ask(this.address, prompt, this.signal, approval);
  }

  shouldStop(): boolean {
    return this.options.shouldStop() || this.signal.aborted;
  }
}
