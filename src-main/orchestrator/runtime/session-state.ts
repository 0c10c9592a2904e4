import type { TokenUsage } from '@shared/domain';
import type { EventRecorder } from './recorder';

/**
 * What every team of one session shares, nested teams included: the event recorder, thread ids of
 * all messages (so a reply in a nested team joins its parent's thread) and running totals.
 */
export class SessionState {
  private readonly threads = new Map<string, string>();
  messageCount = 0;
  readonly tokens: TokenUsage = { prompt: 0, completion: 0 };

  constructor(readonly recorder: EventRecorder) {}

  /** The thread a new message joins: its parent's, or a new one named after itself. */
  threadFor(messageId: string, parentId: string | null): string {
    const thread = (parentId !== null ? this.threads.get(parentId) : undefined) ?? messageId;
    this.threads.set(messageId, thread);
    return thread;
  }

  /** Takes on what a session's events say was recorded so far (resume and fork). */
  restore(snapshot: {
    threads: Iterable<readonly [string, string]>;
    messageCount: number;
    tokens: TokenUsage;
  }): void {
    for (const [messageId, threadId] of snapshot.threads) this.threads.set(messageId, threadId);
    this.messageCount = snapshot.messageCount;
    this.tokens.prompt = snapshot.tokens.prompt;
    this.tokens.completion = snapshot.tokens.completion;
  }

  addUsage(usage: TokenUsage): void {
    this.tokens.prompt += usage.prompt;
    this.tokens.completion += usage.completion;
  }
}
