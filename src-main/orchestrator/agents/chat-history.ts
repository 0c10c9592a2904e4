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
  return new ChatTranscript(spec, address).messages(history);
}

/** A chat turn and the message it was made from (null for the system prompt). */
export interface AttributedTurn {
  turn: ChatMessage;
  message: Message | null;
}

/**
 * The chat messages `toChatMessages` gives, each with the message it was made from: what the
 * agent's model was shown and who said each part (for the context inspector).
 */
export function attributedChatMessages(
  spec: AgentSpec,
  address: string,
  history: readonly Message[],
): AttributedTurn[] {
  const transcript = new ChatTranscript(spec, address, true);
  const chat = transcript.messages(history);
  return chat.map((turn, index) => ({ turn, message: transcript.origins[index] ?? null }));
}

/**
 * One agent's chat messages, kept from request to request. An agent's view only grows, and each
 * request carries all of it, so the messages already turned into chat turns are kept and only
 * the new ones are added (a view that is replaced, as on resume, is read again from the start).
 *
 * A tool call whose result never came (a fork cut after the call, a crash while the tool ran) is
 * left out: model APIs refuse a call without its result. A message with a call still waiting for
 * its result is therefore not kept: it is read again on the next request, when the result may
 * have arrived.
 */
export class ChatTranscript {
  private source: readonly Message[] | null = null;
  /** Messages of `source` searched for this agent's tool results. */
  private scanned = 0;
  /** Messages of `source` turned into `chat` for good. */
  private settled = 0;
  private chat: ChatMessage[] = [];
  /** Tool calls and tool results among `chat` (turns an API names differently, see `plain`). */
  private settledToolTurns = 0;
  private lastToolTurns = 0;
  private readonly answered = new Set<string>();
  /**
   * With `attributed`: the message each turn of the last `messages()` came from, in order (the
   * system prompt's is null). Only for a transcript asked once; the live path keeps none.
   */
  readonly origins: Array<Message | null> = [];

  constructor(
    private readonly spec: AgentSpec,
    readonly address: string,
    private readonly attributed = false,
  ) {}

  /** The chat messages for `history` (a new array each time; its items are shared, never change). */
  messages(history: readonly Message[]): ChatMessage[] {
    if (history !== this.source || history.length < this.scanned) this.restart(history);
    for (; this.scanned < history.length; this.scanned += 1) {
      const message = history[this.scanned] as Message;
      if (message.from === this.address)
        for (const result of message.toolResults ?? []) this.answered.add(result.callId);
    }
    let index = this.settled;
    for (; index < history.length && this.isSettled(history[index] as Message); index += 1)
      this.settledToolTurns += this.append(this.chat, history[index] as Message);
    this.settled = index;
    const chat = this.chat.slice();
    let toolTurns = this.settledToolTurns;
    for (; index < history.length; index += 1) toolTurns += this.append(chat, history[index] as Message);
    this.lastToolTurns = toolTurns;
    return chat;
  }

  /**
   * Whether the last `messages()` holds only system, user and plain assistant turns: no tool call
   * and no tool result, which model clients must rename to their API's fields (ChatRequest.plain).
   */
  get plain(): boolean {
    return this.lastToolTurns === 0;
  }

  private restart(history: readonly Message[]): void {
    this.source = history;
    this.scanned = 0;
    this.settled = 0;
    this.chat = [systemTurn(this.spec)];
    this.origins.length = 0;
    if (this.attributed) this.origins.push(null);
    this.settledToolTurns = 0;
    this.answered.clear();
  }

  /** Whether the message reads the same whatever comes after it. */
  private isSettled(message: Message): boolean {
    if (message.from !== this.address || (message.kind === 'tool' && message.toolResults)) return true;
    return (message.toolCalls ?? []).every((call) => this.answered.has(call.id));
  }

  /** Adds the message's chat turns; returns how many of them are tool calls or tool results. */
  private append(chat: ChatMessage[], message: Message): number {
    if (!this.attributed) return this.appendTurns(chat, message);
    const before = chat.length;
    const toolTurns = this.appendTurns(chat, message);
    for (let index = before; index < chat.length; index += 1) this.origins.push(message);
    return toolTurns;
  }

  private appendTurns(chat: ChatMessage[], message: Message): number {
    if (message.from !== this.address) {
      chat.push(userTurn(message));
      return 0;
    }
    if (message.kind === 'tool' && message.toolResults) {
      for (const result of message.toolResults)
        chat.push({ role: 'tool', toolCallId: result.callId, content: result.content });
      return message.toolResults.length;
    }
    const calls = (message.toolCalls ?? []).filter((call) => this.answered.has(call.id));
    if (calls.length === 0) {
      chat.push(assistantTurn(message));
      return 0;
    }
    chat.push({ role: 'assistant', content: message.content, toolCalls: calls });
    return 1;
  }
}
