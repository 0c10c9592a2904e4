import { sentAgainCount, type RawMessage, type TokenUsage } from '@shared/domain';
import type { ChatMessage } from './chat-messages';
import type { ImportedEvent } from '../../history/ports';

/**
 * The `model.call` events of one session: each model call as it was made, for the raw view.
 * Each agent's previous call (what it was sent, then what it answered) is kept so a call that
 * sends it again stores only the count and what is new.
 */
export class RawCalls {
  private readonly previous = new Map<string, { callId: string; sequence: RawMessage[] }>();

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
    const inputs = call.inputs.map(rawMessage);
    const outputs = call.outputs.map(rawMessage);
    const previous = this.previous.get(call.agent);
    const count = previous ? sentAgainCount(previous.sequence, inputs) : 0;
    this.previous.set(call.agent, { callId: call.callId, sequence: inputs.concat(outputs) });
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
          inputs: count > 0 ? inputs.slice(count) : inputs,
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
