import { calcPrice } from '@pydantic/genai-prices';
import {
  MAX_CONTEXT_PARTS,
  type ContextGroup,
  type ContextPart,
  type ContextPartKind,
  type SessionContext,
} from '@shared/contract';
import { fleetSchema, USER, type Fleet, type Message, type RunEvent } from '@shared/domain';
import type { HistoryStore, MessageWithEarlier } from '../../history';
import { attributedChatMessages, foldRuntime, type AttributedTurn } from '../../orchestrator';
import { AppError } from '../handlers/errors';

type CountTokens = (text: string) => number;

/**
 * The tokenizer for parts no provider counted: gpt-tokenizer's o200k_base, the encoding of
 * OpenAI's current models. A pure-JS BPE port of tiktoken that is kept up with OpenAI's
 * encodings, needs no native build (Electron and Node share it) and works offline; other
 * providers' models tokenize differently, which is why its counts are marked as estimates.
 * Loaded on first use: reading its rank table takes about a second.
 */
let tokenizer: Promise<CountTokens> | null = null;
function loadTokenizer(): Promise<CountTokens> {
  tokenizer ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => module.countTokens);
  return tokenizer;
}

/**
 * Tokenizer counts of stored messages' turns by message id and turn index, kept for the last
 * sessions asked about: a message never changes once complete, and the inspector is asked turn
 * after turn of one session. Bounded by COUNT_CACHE_LIMIT entries in all.
 */
const COUNT_CACHE_LIMIT = 400_000;
const counted = new Map<string, number>();

const PREVIEW_CHARS = 160;

/** The model's context window in tokens from the price table, or null when it does not know it. */
export function contextWindow(model: string): number | null {
  try {
    return calcPrice({ input_tokens: 0, output_tokens: 0 }, model)?.model.context_window ?? null;
  } catch {
    return null;
  }
}

/**
 * What filled the context window of the model call that wrote `messageId`: the agent's view of
 * the messages completed before it started, turned into chat turns by the orchestrator's own
 * code (`foldRuntime` routes them as the live bus did, `attributedChatMessages` makes the turns
 * `LlmAgent` sends), each counted. A turn made from a model's reply takes the completion tokens
 * its provider reported for it; others are counted with the tokenizer and marked as estimates.
 */
export async function inspectContext(
  store: HistoryStore,
  sessionId: string,
  messageId: string,
): Promise<SessionContext> {
  const found = store.getSession(sessionId);
  if (!found) throw new AppError('not-found', `No session with id "${sessionId}".`);
  const stored = store.messageWithEarlier(sessionId, messageId);
  if (!stored) throw new AppError('not-found', `The session has no message "${messageId}".`);
  const { message } = stored;
  const reported = message.usage && message.usage.prompt > 0 ? message.usage.prompt : null;
  const base = (note: string | null, model: string | null = null): SessionContext => ({
    messageId,
    agent: message.from,
    seq: message.seq,
    model,
    windowTokens: model ? contextWindow(model) : null,
    reportedPromptTokens: reported,
    countedTokens: 0,
    estimatedTokens: 0,
    groups: [],
    parts: [],
    omittedParts: 0,
    note,
  });
  if (message.from === USER) return base('A person wrote this message: no model read a context for it.');
  const parsed = found.fleet ? fleetSchema.safeParse(found.fleet) : null;
  if (!parsed?.success)
    return base(
      'This session was imported: which messages each agent was shown was not recorded' +
        (reported !== null ? ', only the prompt tokens its provider reported.' : '.'),
    );
  const fleet = parsed.data;
  const spec = fleet.agents.find((agent) => agent.name === message.from);
  if (!spec)
    return base(
      message.from.includes('/')
        ? `${message.from} is inside a nested team, whose members' views are not kept.`
        : `${message.from} is not an agent of this session's fleet.`,
    );
  const model = spec.type === 'llm' ? (spec.provider?.model ?? null) : null;
  const turns = attributedChatMessages(spec, spec.name, agentView(fleet, spec.name, stored));
  const count = await loadTokenizer();
  const parts = turns.map((turn) => toPart(turn, count));
  const answer = base(
    spec.type === 'llm'
      ? null
      : `${spec.name} is a ${spec.type} agent and calls no model: this is what a model in its place would have been shown.`,
    model,
  );
  for (const part of parts) {
    answer.countedTokens += part.tokens;
    if (part.estimated) answer.estimatedTokens += part.tokens;
  }
  answer.groups = groupParts(parts);
  answer.omittedParts = Math.max(0, parts.length - MAX_CONTEXT_PARTS);
  answer.parts = parts.slice(answer.omittedParts);
  return answer;
}

/** What `agent` had said and received when the message's call was made, routed as the bus does. */
function agentView(fleet: Fleet, agent: string, stored: MessageWithEarlier): readonly Message[] {
  const events = stored.earlier.map((message): RunEvent => ({
    sessionId: '',
    seq: message.seq,
    t: message.t,
    agent: message.from,
    kind: 'message.completed',
    payload: { message },
  }));
  return foldRuntime(events, fleet).team.memory.views[agent] ?? [];
}

function partKind({ turn, message }: AttributedTurn): ContextPartKind {
  if (turn.role === 'system') return 'system';
  if (turn.role === 'tool') return 'tool-result';
  if (turn.role === 'assistant') return turn.toolCalls ? 'tool-call' : 'own';
  return message?.kind === 'task' ? 'task' : 'message';
}

function toPart(attributed: AttributedTurn, count: CountTokens): ContextPart {
  const { turn, message } = attributed;
  const text =
    turn.role === 'assistant' && turn.toolCalls
      ? [turn.content, ...turn.toolCalls.map((call) => `${call.name}(${call.arguments})`)].join('\n')
      : turn.content;
  const completion = message?.usage?.completion ?? 0;
  // A model's reply read back as it was written: its provider counted it.
  const reportedTokens = turn.role === 'assistant' && !turn.toolCalls && completion > 0 ? completion : null;
  return {
    kind: partKind(attributed),
    sender: message?.from ?? null,
    messageId: message?.id ?? null,
    tokens: reportedTokens ?? cachedCount(message, turnKey(attributed), text, count),
    estimated: reportedTokens === null,
    preview: text.slice(0, PREVIEW_CHARS),
  };
}

/** Which of a message's turns this is: its role, and for a tool result the call it answers. */
function turnKey({ turn }: AttributedTurn): string {
  return turn.role === 'tool' ? `tool\u0000${turn.toolCallId}` : turn.role;
}

function cachedCount(message: Message | null, which: string, text: string, count: CountTokens): number {
  if (message === null || message.state === 'streaming') return count(text);
  const key = `${message.id}\u0000${which}\u0000${text.length}`;
  let tokens = counted.get(key);
  if (tokens === undefined) {
    tokens = count(text);
    if (counted.size >= COUNT_CACHE_LIMIT) counted.clear();
    counted.set(key, tokens);
  }
  return tokens;
}

/** The parts summed by kind and sender, in the order each first appears. */
function groupParts(parts: readonly ContextPart[]): ContextGroup[] {
  const groups = new Map<string, ContextGroup>();
  for (const part of parts) {
    const key = `${part.kind}\u0000${part.sender ?? ''}`;
    let group = groups.get(key);
    if (!group) {
      group = { kind: part.kind, sender: part.sender, parts: 0, tokens: 0, estimatedTokens: 0 };
      groups.set(key, group);
    }
    group.parts += 1;
    group.tokens += part.tokens;
    if (part.estimated) group.estimatedTokens += part.tokens;
  }
  return [...groups.values()];
}
