import type { Said } from './said-index';

/** An answer not written yet: its recipient is learnt from who is found repeating it. */
export interface HeldAnswer<Draft> {
  startMs: number;
  endMs: number;
  draft: Draft;
}

/** A held answer with its recipients, written when the batch of spans ends. */
export interface AddressedAnswer<Draft> extends HeldAnswer<Draft> {
  to: string;
  /** Further agents that received the same words at the same turn (a fan-out). */
  alsoTo: string[];
}

/**
 * Answers waiting for their recipients. An answer is held until an agent is found repeating it;
 * the first such agent receives it, and so does every other agent that received it in the same
 * batch of spans as new input, which makes a fan-out one message to each worker. An agent whose
 * input also holds the first recipient's own words got the answer as resent history, not as a
 * message. Addressed answers are handed out by `takeAddressed` when the batch ends, in time order.
 */
export class HeldAnswers<Draft extends { id: string }> {
  private readonly held = new Map<string, HeldAnswer<Draft>>();
  private readonly addressed = new Map<string, AddressedAnswer<Draft>>();
  /** While one model call's inputs are read: what they repeated, to judge resent history. */
  private call: Array<{ said: Said; to: string }> | null = null;

  hold(startMs: number, endMs: number, draft: Draft): void {
    this.held.set(draft.id, { startMs, endMs, draft });
  }

  get size(): number {
    return this.held.size + this.addressed.size;
  }

  /** Starts reading one model call's inputs: deliveries wait for `endCall`. */
  beginCall(): void {
    this.call = [];
  }

  endCall(): void {
    const deliveries = this.call ?? [];
    this.call = null;
    const speakers = new Set(deliveries.map((delivery) => delivery.said.speaker));
    for (const { said, to } of deliveries) {
      const first = this.addressed.get(said.messageId)?.to;
      this.address(said, to, first !== undefined && speakers.has(first));
    }
  }

  /** `to` received what `said` holds. */
  deliver(said: Said, to: string): void {
    if (this.call) this.call.push({ said, to });
    else this.address(said, to, false);
  }

  private address(said: Said, to: string, history: boolean): void {
    const held = this.held.get(said.messageId);
    if (held) {
      this.held.delete(said.messageId);
      this.addressed.set(said.messageId, { ...held, to, alsoTo: [] });
      return;
    }
    const addressed = this.addressed.get(said.messageId);
    if (!addressed || history || addressed.to === to || addressed.alsoTo.includes(to)) return;
    addressed.alsoTo.push(to);
  }

  /** The answers given recipients since the last call, by start time. */
  takeAddressed(): Array<AddressedAnswer<Draft>> {
    const list = [...this.addressed.values()].sort((a, b) => a.startMs - b.startMs);
    this.addressed.clear();
    return list;
  }

  /** Every answer still held, removed: no one was found repeating it. */
  takeHeld(): Array<HeldAnswer<Draft>> {
    const list = [...this.held.values()];
    this.held.clear();
    return list;
  }
}
