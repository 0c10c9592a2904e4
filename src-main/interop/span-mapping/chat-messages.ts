import { AttributeReader, parseJsonish, stringify } from './attribute-reader';
import {
  MESSAGE_EVENT_NAMES,
  eventMessage,
  indexedGenAiMessages,
  openInferenceMessages,
} from './flattened-messages';
import {
  argumentsText,
  isNode,
  messageFromObject,
  messagesFromJson,
  type ChatMessage,
  type ChatToolCall,
  type Node,
} from './message-shapes';
import type { AttributeValue, SpanEvent } from './span';

export type { ChatMessage, ChatToolCall } from './message-shapes';

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
