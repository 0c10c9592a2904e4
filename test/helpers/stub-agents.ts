import type { StubRequest } from './openai-stub';

/** The agent that sent a stub request, read from the default system prompt "You are NAME". */
export function agentOf(request: StubRequest): string {
  const system = request.body?.messages?.[0]?.content;
  const match = typeof system === 'string' ? /^You are ([A-Za-z0-9_-]+)/.exec(system) : null;
  return match?.[1] ?? 'unknown';
}

/** Text of every message the model was shown, one string per message. */
export function promptTexts(request: StubRequest): string[] {
  return (request.body?.messages ?? []).map((message) =>
    typeof message.content === 'string' ? message.content : '',
  );
}

/** Names of the tools offered in a request. */
export function toolNames(request: StubRequest): string[] {
  return (request.body?.tools ?? []).map((tool) => tool.function.name);
}
