import type { TokenUsage, ToolCall } from '@shared/domain';

/**
 * The runtime's view of a chat model: one streamed completion per call. Implementations map
 * their provider's protocol onto these plain types so agents never see SDK types.
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A function the model may call; `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  /**
   * Set when the caller knows no message is a tool call or a tool result (a conversation without
   * tools): a client then sends `messages` as they are without looking through them first. A
   * request grows with its conversation, so that look costs once per message per request.
   */
  plain?: boolean;
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
}

export interface ChatStreamOptions {
  /** Aborting ends the call at once (the HTTP request is cancelled). */
  signal?: AbortSignal;
  /** Called with each piece of text as it arrives. */
  onText?(delta: string): void;
  /** Called when the model starts a tool call (name known, arguments still streaming). */
  onToolCallStarted?(call: { index: number; id: string; name: string }): void;
}

export interface ChatResult {
  content: string;
  toolCalls: ToolCall[];
  /** Null when the provider did not report usage. */
  usage: TokenUsage | null;
  finishReason: string | null;
}

export interface ModelClient {
  /** Streams one completion. Rejects with a ProviderError (never a raw SDK error). */
  complete(request: ChatRequest, options?: ChatStreamOptions): Promise<ChatResult>;
}
