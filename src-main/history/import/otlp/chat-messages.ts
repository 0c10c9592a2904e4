import { AttributeReader, indexed, parseJsonish, stringify } from './attribute-reader';
import type { AttributeValue, SpanEvent } from './span';

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

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const str = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;

/** Arguments as raw JSON text, as Fleetscope's tool calls keep them. */
function argumentsText(value: unknown): string {
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

/** OpenInference's flattened `llm.input_messages.N.message.*` attributes. */
function openInferenceMessages(reader: AttributeReader, prefix: string): ChatMessage[] | null {
  if (!reader.hasPrefix(prefix)) return null;
  return indexed(reader.takePrefix(prefix)).map((record) => {
    const get = (key: string) => record.get(`message.${key}`);
    const message: ChatMessage = { role: str(get('role')) ?? 'user', text: '', toolCalls: [] };
    const name = str(get('name'));
    if (name) message.name = name;
    const texts: string[] = [];
    const content = get('content');
    if (content !== undefined && content !== null) texts.push(stringify(content));
    const contents = new Map<string, AttributeValue>();
    const calls = new Map<string, AttributeValue>();
    for (const [key, value] of record) {
      if (key.startsWith('message.contents.')) contents.set(key.slice('message.contents.'.length), value);
      if (key.startsWith('message.tool_calls.')) calls.set(key.slice('message.tool_calls.'.length), value);
    }
    for (const part of indexed(contents)) {
      const text = part.get('message_content.text');
      if (text !== undefined) texts.push(stringify(text));
      else {
        const url = part.get('message_content.image.image.url');
        if (url !== undefined) texts.push(`[image: ${stringify(url)}]`);
      }
    }
    for (const call of indexed(calls)) {
      message.toolCalls.push({
        id: str(call.get('tool_call.id')) ?? null,
        name: str(call.get('tool_call.function.name')) ?? 'tool',
        arguments: argumentsText(call.get('tool_call.function.arguments')),
      });
    }
    const legacyName = str(get('function_call_name'));
    if (legacyName) {
      message.toolCalls.push({
        id: null,
        name: legacyName,
        arguments: argumentsText(get('function_call_arguments_json')),
      });
    }
    const callId = str(get('tool_call_id'));
    if (callId) message.toolCallId = callId;
    message.text = texts.join('\n');
    return message;
  });
}

/** The indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes (OpenLLMetry and kin). */
function indexedGenAiMessages(
  reader: AttributeReader,
  prefix: string,
  defaultRole: string,
): ChatMessage[] | null {
  if (!reader.hasPrefix(prefix)) return null;
  return indexed(reader.takePrefix(prefix)).map((record) => {
    const message: ChatMessage = { role: str(record.get('role')) ?? defaultRole, text: '', toolCalls: [] };
    const content = record.get('content');
    if (content !== undefined && content !== null) {
      // Content given as a list of parts is written as JSON text.
      const parsed = parseJsonish(content);
      const asMessage = Array.isArray(parsed)
        ? messageFromObject({ role: message.role, content: parsed })
        : null;
      message.text = asMessage ? asMessage.text : stringify(content);
    }
    const calls = new Map<string, AttributeValue>();
    for (const [key, value] of record)
      if (key.startsWith('tool_calls.')) calls.set(key.slice('tool_calls.'.length), value);
    for (const call of indexed(calls)) {
      message.toolCalls.push({
        id: str(call.get('id')) ?? null,
        name: str(call.get('name')) ?? 'tool',
        arguments: argumentsText(call.get('arguments')),
      });
    }
    const fnName = str(record.get('function_call.name'));
    if (fnName)
      message.toolCalls.push({
        id: null,
        name: fnName,
        arguments: argumentsText(record.get('function_call.arguments')),
      });
    const callId = str(record.get('tool_call_id'));
    if (callId) message.toolCallId = callId;
    const name = str(record.get('name'));
    if (name) message.name = name;
    const finish = str(record.get('finish_reason'));
    if (finish) message.finishReason = finish;
    return message;
  });
}

const EVENT_ROLES: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};

/**
 * The per-message span events of the earlier GenAI conventions. Their body was written as
 * attributes (`content`, `tool_calls`, `id`) or as JSON text in `gen_ai.event.content`.
 */
function eventMessage(event: SpanEvent): ChatMessage | null {
  const role = EVENT_ROLES[event.name];
  const attributes = event.attributes;
  const body = parseJsonish(attributes['gen_ai.event.content'] ?? attributes.body);
  const source: Node = isNode(body) ? { ...body } : {};
  for (const key of ['content', 'tool_calls', 'id', 'role', 'message', 'finish_reason', 'index', 'name']) {
    if (key in attributes && !(key in source)) source[key] = parseJsonish(attributes[key]);
  }
  if (role) return messageFromObject({ ...source, role: str(source.role) ?? role });
  if (event.name === 'gen_ai.choice') {
    const inner = isNode(source.message) ? source.message : source;
    const message = messageFromObject({ ...inner, role: str(inner.role) ?? 'assistant' });
    const finish = str(source.finish_reason);
    if (message && finish) message.finishReason = finish;
    return message;
  }
  return null;
}

export const MESSAGE_EVENT_NAMES = new Set([...Object.keys(EVENT_ROLES), 'gen_ai.choice']);

/**
 * The messages a model was sent, from the first form present: the structured
 * `gen_ai.input.messages`; OpenInference's `llm.input_messages.*`; the indexed
 * `gen_ai.prompt.N.*`; the per-message events; the JSON of `gen_ai.prompt` (on the span or on
 * a `gen_ai.content.prompt` event); OpenInference's `input.value`.
 */
export function readInputMessages(
  reader: AttributeReader,
  events: SpanEvent[],
  used: Set<SpanEvent>,
): ChatMessage[] {
  const structured = messagesFromJson(reader.take('gen_ai.input.messages'));
  if (structured) {
    reader.use('input.value', 'input.mime_type');
    return structured;
  }
  const openInference = openInferenceMessages(reader, 'llm.input_messages.');
  if (openInference) {
    reader.use('input.value', 'input.mime_type');
    return openInference;
  }
  const legacy = indexedGenAiMessages(reader, 'gen_ai.prompt.', 'user');
  if (legacy) return legacy;
  const fromEvents: ChatMessage[] = [];
  for (const event of events) {
    if (event.name === 'gen_ai.choice' || !MESSAGE_EVENT_NAMES.has(event.name)) continue;
    const message = eventMessage(event);
    if (message) {
      fromEvents.push(message);
      used.add(event);
    }
  }
  if (fromEvents.length > 0) return fromEvents;
  const promptEvent = events.find((event) => event.name === 'gen_ai.content.prompt');
  const promptJson = reader.take('gen_ai.prompt') ?? promptEvent?.attributes['gen_ai.prompt'];
  const fromPrompt = messagesFromJson(promptJson);
  if (fromPrompt) {
    if (promptEvent) used.add(promptEvent);
    return fromPrompt;
  }
  const input = reader.take('input.value');
  if (input === undefined) return [];
  reader.use('input.mime_type');
  const fromInput = messagesFromJson(input);
  if (fromInput) return fromInput;
  const text = stringify(input);
  return text ? [{ role: 'user', text, toolCalls: [] }] : [];
}

/** The model's answer, from the same forms in the same order (`gen_ai.choice` events). */
export function readOutputMessages(
  reader: AttributeReader,
  events: SpanEvent[],
  used: Set<SpanEvent>,
): ChatMessage[] {
  const structured = messagesFromJson(reader.take('gen_ai.output.messages'));
  if (structured) {
    reader.use('output.value', 'output.mime_type');
    return structured;
  }
  const openInference = openInferenceMessages(reader, 'llm.output_messages.');
  if (openInference) {
    reader.use('output.value', 'output.mime_type');
    return openInference;
  }
  const legacy = indexedGenAiMessages(reader, 'gen_ai.completion.', 'assistant');
  if (legacy) return legacy;
  const choices: ChatMessage[] = [];
  for (const event of events) {
    if (event.name !== 'gen_ai.choice') continue;
    const message = eventMessage(event);
    if (message) {
      choices.push(message);
      used.add(event);
    }
  }
  if (choices.length > 0) return choices;
  const completionEvent = events.find((event) => event.name === 'gen_ai.content.completion');
  const completionJson = reader.take('gen_ai.completion') ?? completionEvent?.attributes['gen_ai.completion'];
  const fromCompletion = messagesFromJson(completionJson);
  if (fromCompletion) {
    if (completionEvent) used.add(completionEvent);
    return fromCompletion.map((message) => ({ ...message, role: message.role || 'assistant' }));
  }
  // any-agent writes `gen_ai.output`: text, or JSON tool calls `[{"tool.name", "tool.args"}]`.
  const anyAgent = reader.take('gen_ai.output');
  if (anyAgent !== undefined) {
    reader.use('gen_ai.output.type');
    const calls = anyAgentToolCalls(anyAgent);
    if (calls) return [{ role: 'assistant', text: '', toolCalls: calls }];
    return [{ role: 'assistant', text: stringify(anyAgent), toolCalls: [] }];
  }
  const output = reader.take('output.value');
  if (output === undefined) return [];
  reader.use('output.mime_type');
  const parsed = parseJsonish(output);
  const fromOutput = messagesFromJson(parsed) ?? (isNode(parsed) ? choiceMessages(parsed) : null);
  if (fromOutput) return fromOutput;
  return [{ role: 'assistant', text: stringify(output), toolCalls: [] }];
}

/** A chat completion response object (`{choices: [{message}]}`) as messages. */
function choiceMessages(value: Node): ChatMessage[] | null {
  if (!Array.isArray(value.choices)) return null;
  const messages = value.choices
    .map((choice) => (isNode(choice) ? messageFromObject(choice.message) : null))
    .filter((message): message is ChatMessage => message !== null);
  return messages.length > 0 ? messages : null;
}

function anyAgentToolCalls(value: AttributeValue): ChatToolCall[] | null {
  const parsed = parseJsonish(value);
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  if (!parsed.every((item) => isNode(item) && typeof item['tool.name'] === 'string')) return null;
  return parsed.map((item) => {
    const node = item as Node;
    return { id: null, name: String(node['tool.name']), arguments: argumentsText(node['tool.args']) };
  });
}

/** `gen_ai.system_instructions` (a list of parts, or text), as text. */
export function readSystemInstructions(reader: AttributeReader): string | null {
  const value = reader.take('gen_ai.system_instructions');
  if (value === undefined || value === null) return null;
  const parsed = parseJsonish(value);
  if (Array.isArray(parsed)) {
    const message = messageFromObject({ role: 'system', parts: parsed });
    return message?.text ?? stringify(parsed);
  }
  return stringify(parsed);
}
