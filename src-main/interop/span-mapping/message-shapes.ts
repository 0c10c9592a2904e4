import { parseJsonish, stringify } from './attribute-reader';

/** A tool call as a model asked for it; the id is missing in some instrumentations. */
export interface ChatToolCall {
  id: string | null;
  name: string;
  arguments: string;
}

/** One chat message, whichever convention it came in. */
export interface ChatMessage {
  role: string;
  name?: string;
  text: string;
  toolCalls: ChatToolCall[];
  /** For tool results: the call they answer. */
  toolCallId?: string;
  finishReason?: string;
  /** Reasoning text the model showed, kept apart from what it said. */
  reasoning?: string;
}

export type Node = Record<string, unknown>;
export const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const str = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

/** Arguments as raw JSON text, as Fleetscope's tool calls keep them. */
export function argumentsText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : stringify(value);
}

/**
 * A message from any of the JSON shapes instrumentations write: the GenAI conventions'
 * `{role, parts}`; OpenAI chat `{role, content, tool_calls, tool_call_id}`; Responses API
 * items (`function_call`, `function_call_output`, `message` with `input_text`); Anthropic-style
 * content blocks (`text`, `tool_use`, `tool_result`). Null for anything else.
 */
export function messageFromObject(value: unknown): ChatMessage | null {
  if (!isNode(value)) return null;
  const type = str(value.type);
  if (type === 'function_call') {
    return {
      role: 'assistant',
      text: '',
      toolCalls: [
        {
          id: str(value.call_id) ?? str(value.id) ?? null,
          name: str(value.name) ?? 'tool',
          arguments: argumentsText(value.arguments),
        },
      ],
    };
  }
  if (type === 'function_call_output') {
    return {
      role: 'tool',
      text: stringify(value.output ?? ''),
      toolCalls: [],
      toolCallId: str(value.call_id),
    };
  }
  const role = str(value.role);
  if (role === undefined) return null;
  const message: ChatMessage = { role, text: '', toolCalls: [] };
  const name = str(value.name);
  if (name) message.name = name;
  const finish = str(value.finish_reason);
  if (finish) message.finishReason = finish;
  const toolCallId = str(value.tool_call_id) ?? str(value.id);
  if (role === 'tool' && toolCallId) message.toolCallId = toolCallId;
  const texts: string[] = [];
  const reasoning: string[] = [];
  const addPart = (part: unknown) => {
    if (typeof part === 'string') {
      texts.push(part);
      return;
    }
    if (!isNode(part)) return;
    const partType = str(part.type) ?? 'text';
    switch (partType) {
      case 'text':
      case 'input_text':
      case 'output_text':
        texts.push(str(part.content) ?? str(part.text) ?? '');
        break;
      case 'refusal':
        texts.push(str(part.refusal) ?? str(part.content) ?? '');
        break;
      case 'reasoning':
      case 'thinking':
        reasoning.push(str(part.content) ?? str(part.text) ?? str(part.thinking) ?? '');
        break;
      case 'tool_call':
      case 'tool_use':
        message.toolCalls.push({
          id: str(part.id) ?? null,
          name: str(part.name) ?? 'tool',
          arguments: argumentsText(part.arguments ?? part.input),
        });
        break;
      case 'tool_call_response':
      case 'tool_result': {
        message.role = role === 'assistant' ? role : 'tool';
        const id = str(part.id) ?? str(part.tool_use_id);
        if (id) message.toolCallId = id;
        const response = part.response ?? part.content;
        texts.push(typeof response === 'string' ? response : stringify(response ?? ''));
        break;
      }
      default: {
        // Images, audio, files: named where the text would be, never silently left out.
        const where = str(part.uri) ?? str(part.url) ?? str(part.file_id) ?? str(part.mime_type) ?? '';
        texts.push(`[${partType}${where ? `: ${where}` : ''}]`);
      }
    }
  };
  if (Array.isArray(value.parts)) value.parts.forEach(addPart);
  const content = value.content;
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) content.forEach(addPart);
  else if (content !== undefined && content !== null) texts.push(stringify(content));
  if (Array.isArray(value.tool_calls)) {
    for (const call of value.tool_calls) {
      if (!isNode(call)) continue;
      const fn = isNode(call.function) ? call.function : call;
      message.toolCalls.push({
        id: str(call.id) ?? null,
        name: str(fn.name) ?? 'tool',
        arguments: argumentsText(fn.arguments),
      });
    }
  }
  if (isNode(value.function_call)) {
    message.toolCalls.push({
      id: null,
      name: str(value.function_call.name) ?? 'tool',
      arguments: argumentsText(value.function_call.arguments),
    });
  }
  message.text = texts.filter((text) => text !== '').join('\n');
  if (reasoning.length > 0) message.reasoning = reasoning.join('\n');
  return message;
}

/** A list of messages from a JSON value (or JSON text), or null when it is not one. */
export function messagesFromJson(value: unknown): ChatMessage[] | null {
  const parsed = parseJsonish(value);
  const list = Array.isArray(parsed)
    ? parsed
    : isNode(parsed) && Array.isArray(parsed.messages)
      ? parsed.messages
      : null;
  if (!list) return null;
  const messages = list.map(messageFromObject);
  return messages.every((message): message is ChatMessage => message !== null) ? messages : null;
}
