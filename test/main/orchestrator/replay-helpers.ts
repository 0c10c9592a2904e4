import type { ChatRequest } from '../../../src-main/llm';
import { llm } from '../../helpers/fleet-builders';

/** Never contacted: agents of these fleets get their replies from a ReplayModelClient. */
const REPLAY_URL = 'http://replay.invalid/v1';

/** An LLM agent whose model is the test's replay client. */
export function replayLlm(name: string, extra: Parameters<typeof llm>[2] = {}): ReturnType<typeof llm> {
  return llm(name, REPLAY_URL, extra);
}

/** The selector model's provider in replay fleets. */
export const REPLAY_SELECTOR = { id: 'custom', baseUrl: REPLAY_URL, model: 'selector' };

/** The agent that made a request, read from the default system prompt "You are NAME". */
export function speakerOf(request: ChatRequest | undefined): string {
  const system = request?.messages[0];
  const match = system?.role === 'system' ? /^You are ([A-Za-z0-9_-]+)/.exec(system.content) : null;
  return match?.[1] ?? 'unknown';
}

/** Text of every message the model was shown, one string per message. */
export function promptOf(request: ChatRequest | undefined): string[] {
  return (request?.messages ?? []).map((message) => message.content);
}

/** Names of the tools offered in a request. */
export function toolsOf(request: ChatRequest | undefined): string[] {
  return (request?.tools ?? []).map((tool) => tool.name);
}

/** True for the selector model's "who speaks next" question. */
export function isSelectorQuestion(request: ChatRequest): boolean {
  return promptOf(request).some((text) => text.includes('Who speaks next?'));
}
