import type { AgentSpec, AgentStatus, Draft, EventBody, Message, ToolApproval } from '@shared/domain';
import type { MessageOpening, MessageWriter } from '../runtime/bus';

/**
 * What an agent can do during its turn. Envelopes are filled in for it: `from` is always the
 * agent, `to` defaults to the receiver the team chose, and `parentId` to the message that
 * prompted the turn.
 */
export interface TurnContext {
  /** The agent's name in its team. */
  readonly name: string;
  /** The agent's envelope name (nested teams prefix their scope: `team/name`). */
  readonly address: string;
  /** Default receiver for replies, chosen by the team pattern (an agent, `*` or the owner). */
  readonly receiver: string;
  /** The message that prompted this turn, or null. */
  readonly trigger: Message | null;
  /** Aborted when the run is cancelled or a termination condition cuts the turn short. */
  readonly signal: AbortSignal;
  /** Swarm: agents this one may hand the conversation to (each becomes a transfer tool). */
  readonly handoffTargets: readonly string[];
  /** What this agent said and received so far, in order. */
  history(): readonly Message[];
  /** Opens a streamed message; unspecified fields take the defaults above. */
  open(opening?: Partial<MessageOpening>): MessageWriter;
  /** Sends a whole message; `to` defaults to `receiver`. */
  send(draft: Omit<Draft, 'to'> & { to?: string }): Message;
  /** Sends a handoff message to `target` and records the handoff event. */
  handoff(target: string, content: string, parentId?: string | null): Message;
  /** Records an event about this agent. */
  emit(body: EventBody): void;
  setStatus(status: AgentStatus): void;
  /**
   * Waits for a person's answer; the run shows waiting-for-human meanwhile. `approval` says the
   * question is whether this tool call may run (the app then offers Approve, Deny and Edit).
   */
  askHuman(prompt: string, approval?: ToolApproval): Promise<string>;
  /** True once the run should end after the current step (a condition fired, or stop was asked). */
  shouldStop(): boolean;
}

/** A participant of a team: LLM, human, scripted, or a nested team. */
export interface Agent {
  readonly spec: AgentSpec;
  turn(context: TurnContext): Promise<void>;
  /** Forgets per-run state (scripted position, nested team state). */
  reset(): void;
  /** Takes up where it stood after `turns` turns (a resumed or forked session); stateless agents ignore it. */
  restoreTurns?(turns: number): void;
}

/**
 * A failure that ends the run as failed with stopReason `error`. `message` is a sentence a person
 * understands; the agent has already recorded the matching `error` event.
 */
export class AgentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgentFailure';
  }
}

/** The turn was cut short by cancellation or a termination condition; not a failure. */
export class TurnAborted extends Error {
  constructor() {
    super('The turn was cut short.');
    this.name = 'TurnAborted';
  }
}
