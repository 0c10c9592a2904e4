import { USER, type AgentSpec, type Message } from '@shared/domain';
import type { ChatMessage } from '../../llm';

/** The system prompt: the fleet's text, or one made from the agent's name, role and description. */
export function systemPrompt(spec: AgentSpec): string {
  const parts = [spec.systemPrompt.trim()];
  if (parts[0] === '') {
    parts[0] = `You are ${spec.name}${spec.role ? `, ${spec.role}` : ''}.`;
    if (spec.description) parts.push(spec.description);
  }
  return parts.join('\n\n');
}

/**
 * Chat turns that read the same to every agent (another's message as a user turn, one's own plain
 * message as an assistant turn), made once per message rather than once per message per request:
 * the history grows with every turn and each request carries all of it. Shared, so never changed.
 */
const systemTurns = new WeakMap<AgentSpec, ChatMessage>();
const userTurns = new WeakMap<Message, ChatMessage>();
const assistantTurns = new WeakMap<Message, ChatMessage>();

function systemTurn(spec: AgentSpec): ChatMessage {
  let turn = systemTurns.get(spec);
  if (turn === undefined) {
    turn = { role: 'system', content: systemPrompt(spec) };
    systemTurns.set(spec, turn);
  }
  return turn;
}

function userTurn(message: Message): ChatMessage {
  let turn = userTurns.get(message);
  if (turn === undefined) {
    turn = {
      role: 'user',
      content: message.from === USER ? message.content : `${message.from}: ${message.content}`,
    };
    userTurns.set(message, turn);
  }
  return turn;
}

function assistantTurn(message: Message): ChatMessage {
  let turn = assistantTurns.get(message);
  if (turn === undefined) {
    turn = { role: 'assistant', content: message.content };
    assistantTurns.set(message, turn);
  }
  return turn;
}

/**
 * Turns an agent's view of the conversation into chat messages: its own messages become assistant
 * turns (tool calls and results included), everyone else's become user turns that name the sender.
 */
export function toChatMessages(spec: AgentSpec, address: string, history: readonly Message[]): ChatMessage[] {
  const chat: ChatMessage[] = [systemTurn(spec)];
  // A tool call whose result never came (a fork cut after the call, a crash while the tool ran)
  // is left out: model APIs refuse a call without its result.
  const answered = new Set<string>();
  for (const message of history)
    if (message.from === address) for (const result of message.toolResults ?? []) answered.add(result.callId);
  for (const message of history) {
    if (message.from === address) {
      const calls = (message.toolCalls ?? []).filter((call) => answered.has(call.id));
      if (message.kind === 'tool' && message.toolResults) {
        for (const result of message.toolResults) {
          chat.push({ role: 'tool', toolCallId: result.callId, content: result.content });
        }
      } else if (calls.length > 0) {
        chat.push({ role: 'assistant', content: message.content, toolCalls: calls });
      } else {
        chat.push(assistantTurn(message));
      }
    } else {
      chat.push(userTurn(message));
    }
  }
  return chat;
}
