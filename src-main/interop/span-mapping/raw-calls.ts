import { sentAgainCount, type RawMessage, type TokenUsage } from '@shared/domain';
import type { ChatMessage } from './chat-messages';
import type { ImportedEvent } from '../../history/ports';

/**
 * The `model.call` events of one session: each model call as it was made, for the raw view.
 * Each agent's previous call (what it was sent, then what it answered) is kept so a call that
 * sends it again stores only the count and what is new.
 */
export class RawCalls {
  private readonly previous = new Map<string, { callId: string; sequence: readonly ChatMessage[] }>();

  record(
    /** Events at their span times (the transcript's `Timed`). */
    out: Array<{ ms: number; event: ImportedEvent }>,
    call: {
      ms: number;
      agent: string;
      callId: string;
      model: string | null;
      inputs: readonly ChatMessage[];
      outputs: readonly ChatMessage[];
      usage: TokenUsage | null;
      error?: string;
    },
  ): void {
    // Compared as read, and only what is new converted: a chat resending its history sends the
    // same messages again and again.
    const previous = this.previous.get(call.agent);
    const count = previous ? sentAgainCount(previous.sequence, call.inputs) : 0;
    this.previous.set(call.agent, { callId: call.callId, sequence: call.inputs.concat(call.outputs) });
    const inputs = call.inputs.slice(count).map(rawMessage);
    const outputs = call.outputs.map(rawMessage);
    out.push({
      ms: call.ms,
      event: {
        t: 0,
        agent: call.agent,
        kind: 'model.call',
        payload: {
          callId: call.callId,
          model: call.model,
          sentAgain: previous && count > 0 ? { callId: previous.callId, count } : null,
          inputs,
          outputs,
          usage: call.usage,
          ...(call.error ? { error: call.error } : {}),
        },
      },
    });
  }
}

function rawMessage(message: ChatMessage): RawMessage {
  return {
    role: message.role,
    ...(message.name ? { name: message.name } : {}),
    text: message.text,
    ...(message.toolCalls.length > 0 ? { toolCalls: message.toolCalls } : {}),
    ...(message.toolCallId ? { toolCallId: message.toolCallId } : {}),
  };
}
