import { calcPrice } from '@pydantic/genai-prices';
import {
  MAX_CONTEXT_PARTS,
  type ContextGroup,
  type ContextPart,
  type ContextPartKind,
  type SessionContext,
} from '@shared/contract';
import { fleetSchema, USER, type Message } from '@shared/domain';
import type { HistoryStore, ViewMessage } from '../../history';
import { agentViewOf, attributedChatMessages, type AttributedTurn } from '../../orchestrator';
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

/** One chat turn as a part, with the seq of the message it came from (0 for the system prompt). */
interface PlacedPart {
  part: ContextPart;
  seq: number;
  /** Its group's index in `AgentParts.groups`. */
  group: number;
  /**
   * For a part made from a message read without its text (its preview not made yet): what
   * precedes the text in the turn (the sender's name, or nothing); null otherwise.
   */
  textless: string | null;
}

/** An agent's whole view as parts, and the (kind, sender) groups they fall in, in first-seen order. */
interface AgentParts {
  parts: PlacedPart[];
  groups: Array<{ kind: ContextPartKind; sender: string | null }>;
}

/** One agent's view as the inspector last read it: up to `lastSeq`, and its parts. */
interface ReadView {
  messages: ViewMessage[];
  lastSeq: number;
  /** The parts of its whole view as of `lastSeq`, in reading order; null until asked. */
  parts: AgentParts | null;
}

/** The session the inspector last read: each asked agent's view. */
interface ReadSession {
  id: string;
  views: Map<string, ReadView>;
}

/**
 * What filled the context window of the model call that wrote a message: the agent's view of
 * the messages completed before it started, turned into chat turns by the orchestrator's own
 * code (`agentViewOf` routes them as the live bus did, `attributedChatMessages` makes the turns
 * `LlmAgent` sends), each counted. A turn made from a model's reply takes the completion tokens
 * its provider reported for it (plus its sender's name when another agent reads it); others
 * are counted with the tokenizer and marked as estimates.
 *
 * It reads only what can be in the agent's view (its own messages, and those to it or to
 * everyone), and the text only of what it counts: a turn its provider counted is summed from the
 * stored count, and its text is read only for the parts shown. The inspector keeps the last
 * session it read (each asked agent's view, read on from the last seq as the session grows, and
 * its parts), so stepping through a long session's turns reads and counts it once: an agent's
 * view only grows, so the parts of one call are those of its whole view made from messages
 * before the call. (A tool call whose result came only after the
 * call, as after a crash, is left out of a request but counted here.)
 */
export class ContextInspector {
  private read: ReadSession | null = null;

  constructor(private readonly store: HistoryStore) {}

  async inspect(sessionId: string, messageId: string): Promise<SessionContext> {
    const found = this.store.getSession(sessionId);
    if (!found) throw new AppError('not-found', `No session with id "${sessionId}".`);
    const start = this.store.messageStart(sessionId, messageId);
    if (!start) throw new AppError('not-found', `The session has no message "${messageId}".`);
    const { message } = start;
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
    const spec = parsed.data.agents.find((agent) => agent.name === message.from);
    if (!spec)
      return base(
        message.from.includes('/')
          ? `${message.from} is inside a nested team, whose members' views are not kept.`
          : `${message.from} is not an agent of this session's fleet.`,
      );
    const model = spec.type === 'llm' ? (spec.provider?.model ?? null) : null;
    const count = await loadTokenizer();
    const view = this.view(sessionId, spec.name);
    const placed = (view.parts ??= placeParts(
      attributedChatMessages(spec, spec.name, agentViewOf(parsed.data, spec.name, view.messages)),
      count,
    ));
    const answer = base(
      spec.type === 'llm'
        ? null
        : `${spec.name} is a ${spec.type} agent and calls no model: this is what a model in its place would have been shown.`,
      model,
    );
    const end = firstAtOrAfter(placed.parts, start.startSeq);
    const groups: ContextGroup[] = placed.groups.map((group) => ({
      ...group,
      parts: 0,
      tokens: 0,
      estimatedTokens: 0,
    }));
    for (let index = 0; index < end; index += 1) {
      const { part, group } = placed.parts[index] as PlacedPart;
      const sums = groups[group] as ContextGroup;
      sums.parts += 1;
      sums.tokens += part.tokens;
      if (part.estimated) sums.estimatedTokens += part.tokens;
    }
    answer.groups = groups.filter((group) => group.parts > 0);
    for (const group of answer.groups) {
      answer.countedTokens += group.tokens;
      answer.estimatedTokens += group.estimatedTokens;
    }
    answer.omittedParts = Math.max(0, end - MAX_CONTEXT_PARTS);
    const shown = placed.parts.slice(answer.omittedParts, end);
    this.fillPreviews(sessionId, shown);
    answer.parts = shown.map((item) => item.part);
    return answer;
  }

  /** The agent's view up to now, read on from where the last call stopped. */
  private view(sessionId: string, agent: string): ReadView {
    if (this.read?.id !== sessionId) this.read = { id: sessionId, views: new Map() };
    let view = this.read.views.get(agent);
    if (!view) {
      view = { messages: [], lastSeq: 0, parts: null };
      this.read.views.set(agent, view);
    }
    const added = this.store.viewMessagesAfter(sessionId, agent, view.lastSeq);
    if (added.length > 0) {
      for (const message of added) view.messages.push(message);
      view.lastSeq = (added[added.length - 1] as ViewMessage).seq;
      view.parts = null;
    }
    return view;
  }

  /** Reads the text of the shown parts whose message was read without it. */
  private fillPreviews(sessionId: string, shown: readonly PlacedPart[]): void {
    const waiting = shown.filter((item) => item.textless !== null);
    if (waiting.length === 0) return;
    const texts = this.store.messageTexts(
      sessionId,
      waiting.map((item) => item.part.messageId as string),
    );
    for (const item of waiting) {
      const text = texts.get(item.part.messageId as string) ?? '';
      item.part.preview = `${item.textless}${text}`.slice(0, PREVIEW_CHARS);
      item.textless = null;
    }
  }
}

/** The index of the first part from a message at or after `seq` (parts are in seq order). */
function firstAtOrAfter(parts: readonly PlacedPart[], seq: number): number {
  let low = 0;
  let high = parts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((parts[middle] as PlacedPart).seq < seq) low = middle + 1;
    else high = middle;
  }
  return low;
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
  // A model's reply read back as it was written: its provider counted it. Read by another agent
  // it is a user turn that names its sender first, a few tokens counted here.
  let reportedTokens: number | null = null;
  if (completion > 0 && turn.role === 'assistant' && !turn.toolCalls) reportedTokens = completion;
  if (
    completion > 0 &&
    turn.role === 'user' &&
    message &&
    turn.content === `${message.from}: ${message.content}`
  )
    reportedTokens = completion + senderPrefixTokens(message.from, count);
  return {
    kind: partKind(attributed),
    sender: message?.from ?? null,
    messageId: message?.id ?? null,
    tokens: reportedTokens ?? cachedCount(message, turnKey(attributed), text, count),
    estimated: reportedTokens === null,
    preview: text.slice(0, PREVIEW_CHARS),
  };
}

const prefixTokens = new Map<string, number>();
function senderPrefixTokens(sender: string, count: CountTokens): number {
  let tokens = prefixTokens.get(sender);
  if (tokens === undefined) {
    tokens = count(`${sender}: `);
    if (prefixTokens.size >= 10_000) prefixTokens.clear();
    prefixTokens.set(sender, tokens);
  }
  return tokens;
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

/** The turns as parts, each with its message's seq and its (kind, sender) group. */
function placeParts(turns: readonly AttributedTurn[], count: CountTokens): AgentParts {
  const groups: AgentParts['groups'] = [];
  const groupIndex = new Map<string, number>();
  const parts = turns.map((turn): PlacedPart => {
    const part = toPart(turn, count);
    const key = `${part.kind}\u0000${part.sender ?? ''}`;
    let group = groupIndex.get(key);
    if (group === undefined) {
      group = groups.length;
      groups.push({ kind: part.kind, sender: part.sender });
      groupIndex.set(key, group);
    }
    const message = turn.message as ViewMessage | null;
    const textless = message?.textless ? (turn.turn.role === 'user' ? `${message.from}: ` : '') : null;
    return { part, seq: message ? message.seq : 0, group, textless };
  });
  return { parts, groups };
}
