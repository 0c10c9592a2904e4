import { indexed, parseJsonish, stringify, type AttributeReader } from './attribute-reader';
import { argumentsText, isNode, messageFromObject, str, type ChatMessage, type Node } from './message-shapes';
import type { AttributeValue, SpanEvent } from './span';

/** OpenInference's flattened `llm.input_messages.N.message.*` attributes. */
export function openInferenceMessages(reader: AttributeReader, prefix: string): ChatMessage[] | null {
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
export function indexedGenAiMessages(
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
export function eventMessage(event: SpanEvent): ChatMessage | null {
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

/** Span events that carry one chat message each. */
export const MESSAGE_EVENT_NAMES = new Set([...Object.keys(EVENT_ROLES), 'gen_ai.choice']);
