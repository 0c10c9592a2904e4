import { calcPrice } from '@pydantic/genai-prices';
import {
  MAX_CONTEXT_PARTS,
  type ContextGroup,
  type ContextPart,
  type ContextPartKind,
  type SessionContext,
} from '@shared/contract';
import {
  fleetSchema,
  USER,
  type AgentSpec,
  type Fleet,
  type Message,
  type MessageKind,
} from '@shared/domain';
import { countedSumKey, type CountedSum, type HistoryStore, type ViewMessage } from '../../history';
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
  /**
   * For a part made from a message read without its text (its preview not made yet): what
   * precedes the text in the turn (the sender's name, or nothing); null otherwise.
   */
  textless: string | null;
}

/** An agent's whole view as parts, and the (kind, sender) groups they fall in, in first-seen order. */
interface AgentParts {
  parts: PlacedPart[];
  /** The parts' sums by group (key `kindKey`), all of them. */
  totals: Map<string, GroupSum>;
  /**
   * The agent's own messages with tool calls or results that the counted sums also hold (see
   * `countedBefore`), in seq order, and their sums by sum key (`countedSumKey`).
   */
  ownTools: Array<{ seq: number; key: string; completion: number }>;
  ownToolTotals: Map<string, { messages: number; completion: number }>;
  ownToolSeqs: Set<number>;
}

/**
 * One agent's view as the inspector last read it, up to `readSeq`: the sums of its counted
 * messages, and the messages they cannot stand for (see HistoryStore.viewAfter).
 */
interface ReadView {
  counted: Map<string, CountedSum>;
  detail: ViewMessage[];
  readSeq: number;
  /** The parts `detail` makes, in reading order (the system prompt first); null until asked. */
  parts: AgentParts | null;
}

/** The session the inspector last read: each asked agent's view. */
interface ReadSession {
  id: string;
  views: Map<string, ReadView>;
}

/** A group's sums and the seq of its first part (the order groups are listed in). */
interface GroupSum extends ContextGroup {
  firstSeq: number;
}

/**
 * What filled the context window of the model call that wrote a message: the agent's view of
 * the messages completed before it started, turned into chat turns by the orchestrator's own
 * code (`agentViewOf` routes them as the live bus did, `attributedChatMessages` makes the turns
 * `LlmAgent` sends), each counted. A turn made from a model's reply takes the completion tokens
 * its provider reported for it (plus its sender's name when another agent reads it); others
 * are counted with the tokenizer and marked as estimates.
 *
 * Most of a long session's messages are replies whose provider counted them, each one turn of
 * that many tokens (plus the sender's name when another agent reads it), routed by its sender,
 * receiver and kind alone: those are summed by the store from an index, per sender, receiver and
 * kind, without reading them (`viewAfter`'s counted sums), and only the last MAX_CONTEXT_PARTS of
 * them are read, for the parts listed. The rest of the view (a person's messages, errors, what no
 * provider counted, the agent's own tool calls and results) is read and turned into parts by the
 * orchestrator's code as a whole view would be. The inspector keeps the last session it read
 * (each asked agent's sums and parts, read on from the last seq as the session grows), so
 * stepping through a long session's turns reads it once: an agent's view only grows, so the parts
 * of one call are those of its whole view made from messages before the call. (A tool call whose
 * result came only after the call, as after a crash, is left out of a request but counted here.)
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
    const placed = (view.parts ??= agentParts(parsed.data, spec, view.detail, count));
    const answer = base(
      spec.type === 'llm'
        ? null
        : `${spec.name} is a ${spec.type} agent and calls no model: this is what a model in its place would have been shown.`,
      model,
    );
    const end = firstAtOrAfter(placed.parts, start.startSeq);
    const groups = partSumsBefore(placed, end);
    const counted = routedSums(
      parsed.data,
      spec.name,
      this.countedBefore(sessionId, view, placed, spec.name, start.startSeq),
    );
    let countedParts = 0;
    for (const sum of counted.values()) {
      const own = sum.sender === spec.name;
      const kind: ContextPartKind = own ? 'own' : sum.kind === 'task' ? 'task' : 'message';
      const sums = groupOf(groups, kind, sum.sender, sum.firstSeq);
      sums.parts += sum.messages;
      sums.tokens += sum.completionTokens + (own ? 0 : sum.messages * senderPrefixTokens(sum.sender, count));
      countedParts += sum.messages;
    }
    answer.groups = [...groups.values()]
      .sort((a, b) => a.firstSeq - b.firstSeq)
      .map(({ firstSeq: _firstSeq, ...sums }) => sums);
    for (const sums of answer.groups) {
      answer.countedTokens += sums.tokens;
      answer.estimatedTokens += sums.estimatedTokens;
    }
    const shown = this.lastParts(sessionId, spec, placed, end, start.startSeq, counted, count);
    answer.omittedParts = end + countedParts - shown.length;
    this.fillPreviews(sessionId, shown);
    answer.parts = shown.map((item) => item.part);
    return answer;
  }

  /** The agent's view up to now, read on from where the last call stopped. */
  private view(sessionId: string, agent: string): ReadView {
    if (this.read?.id !== sessionId) this.read = { id: sessionId, views: new Map() };
    let view = this.read.views.get(agent);
    if (!view) {
      view = { counted: new Map(), detail: [], readSeq: 0, parts: null };
      this.read.views.set(agent, view);
    }
    const added = this.store.viewAfter(sessionId, agent, view.readSeq);
    for (const sum of added.counted) {
      addSum(view.counted, sum, 1);
      view.readSeq = Math.max(view.readSeq, sum.lastSeq);
    }
    for (const message of added.detail) {
      view.detail.push(message);
      view.readSeq = Math.max(view.readSeq, message.seq);
    }
    if (added.detail.length > 0) view.parts = null;
    return view;
  }

  /**
   * The sums of the view's counted messages before `startSeq` that read as one plain turn: from
   * the store over the shorter stretch (those before `startSeq`, or the view's sums less those
   * from `startSeq` on), less the agent's own tool calls and results (read in full).
   */
  private countedBefore(
    sessionId: string,
    view: ReadView,
    placed: AgentParts,
    agent: string,
    startSeq: number,
  ): Map<string, CountedSum> {
    const last = startSeq - 1;
    let sums: Map<string, CountedSum>;
    if (last >= view.readSeq) sums = cloneSums(view.counted);
    else if (last < view.readSeq - last) {
      sums = new Map();
      for (const sum of this.store.viewCountedSums(sessionId, agent, 0, last)) addSum(sums, sum, 1);
    } else {
      sums = cloneSums(view.counted);
      for (const sum of this.store.viewCountedSums(sessionId, agent, last, view.readSeq))
        addSum(sums, sum, -1);
    }
    // The agent's own tool turns before the call, taken out: counted from the nearer end.
    const { ownTools, ownToolTotals } = placed;
    const cut = firstAfter(ownTools, last);
    const take = (key: string, messages: number, completion: number) => {
      const sum = sums.get(key);
      if (!sum) return;
      sum.messages -= messages;
      sum.completionTokens -= completion;
    };
    if (cut > ownTools.length / 2) {
      for (const [key, total] of ownToolTotals) take(key, total.messages, total.completion);
      for (let index = cut; index < ownTools.length; index += 1) {
        const { key, completion } = ownTools[index] as AgentParts['ownTools'][number];
        take(key, -1, -completion);
      }
    } else
      for (let index = 0; index < cut; index += 1) {
        const { key, completion } = ownTools[index] as AgentParts['ownTools'][number];
        take(key, 1, completion);
      }
    for (const [key, sum] of sums) {
      if (sum.messages <= 0) sums.delete(key);
      else if (placed.ownToolSeqs.has(sum.firstSeq))
        sum.firstSeq =
          this.store.viewFirstPlainCounted(sessionId, sum, sum.firstSeq, startSeq) ?? sum.firstSeq;
    }
    return sums;
  }

  /**
   * The last MAX_CONTEXT_PARTS parts before `startSeq`: the detail parts and the counted
   * messages, the last of which are read (their text only for the preview), merged in seq order.
   */
  private lastParts(
    sessionId: string,
    spec: AgentSpec,
    placed: AgentParts,
    end: number,
    startSeq: number,
    counted: ReadonlyMap<string, CountedSum>,
    count: CountTokens,
  ): PlacedPart[] {
    const tail = this.store
      .viewCountedBefore(sessionId, spec.name, startSeq, MAX_CONTEXT_PARTS, [...counted.values()])
      .reverse();
    const boundary = tail.length >= MAX_CONTEXT_PARTS ? (tail[0] as ViewMessage).seq : 0;
    const countedParts = placeParts(attributedChatMessages(spec, spec.name, tail), count).slice(1);
    const detailParts = placed.parts.slice(firstAtOrAfter(placed.parts, boundary), end);
    const merged: PlacedPart[] = [];
    let next = 0;
    for (const item of detailParts) {
      while (next < countedParts.length && (countedParts[next] as PlacedPart).seq < item.seq)
        merged.push(countedParts[next++] as PlacedPart);
      merged.push(item);
    }
    while (next < countedParts.length) merged.push(countedParts[next++] as PlacedPart);
    return merged.slice(-MAX_CONTEXT_PARTS);
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

/** The turns as parts, each with its message's seq. */
function placeParts(turns: readonly AttributedTurn[], count: CountTokens): PlacedPart[] {
  return turns.map((turn): PlacedPart => {
    const part = toPart(turn, count);
    const message = turn.message as ViewMessage | null;
    const textless = message?.textless ? (turn.turn.role === 'user' ? `${message.from}: ` : '') : null;
    return { part, seq: message ? message.seq : 0, textless };
  });
}

/** The parts of the detail messages of an agent's view and the sums kept beside them. */
function agentParts(
  fleet: Fleet,
  spec: AgentSpec,
  detail: readonly ViewMessage[],
  count: CountTokens,
): AgentParts {
  const parts = placeParts(
    attributedChatMessages(spec, spec.name, agentViewOf(fleet, spec.name, detail)),
    count,
  );
  const totals = new Map<string, GroupSum>();
  for (const { part, seq } of parts) addPart(totals, part, seq, 1);
  const ownTools: AgentParts['ownTools'] = [];
  const ownToolTotals: AgentParts['ownToolTotals'] = new Map();
  for (const message of detail) {
    const completion = message.usage?.completion ?? 0;
    // As the store's counted sums select them (COUNTED in history/context-queries.ts).
    if (message.from !== spec.name || message.kind === 'error' || completion <= 0) continue;
    if (!message.toolCalls && !message.toolResults) continue;
    const key = countedSumKey(message.from, message.to, message.kind);
    ownTools.push({ seq: message.seq, key, completion });
    const total = ownToolTotals.get(key) ?? { messages: 0, completion: 0 };
    total.messages += 1;
    total.completion += completion;
    ownToolTotals.set(key, total);
  }
  return { parts, totals, ownTools, ownToolTotals, ownToolSeqs: new Set(ownTools.map((tool) => tool.seq)) };
}

/** The group of `kind` from `sender` in `groups`, made (empty) when missing. */
function groupOf(
  groups: Map<string, GroupSum>,
  kind: ContextPartKind,
  sender: string | null,
  firstSeq: number,
): GroupSum {
  const key = `${kind}\u0000${sender ?? ''}`;
  let sums = groups.get(key);
  if (!sums) {
    sums = { kind, sender, parts: 0, tokens: 0, estimatedTokens: 0, firstSeq };
    groups.set(key, sums);
  }
  sums.firstSeq = Math.min(sums.firstSeq, firstSeq);
  return sums;
}

function addPart(groups: Map<string, GroupSum>, part: ContextPart, seq: number, sign: 1 | -1): void {
  const sums = groupOf(groups, part.kind, part.sender, seq);
  sums.parts += sign;
  sums.tokens += sign * part.tokens;
  if (part.estimated) sums.estimatedTokens += sign * part.tokens;
}

/**
 * The group sums of the parts before `end`, counted from the nearer end: the first ones added
 * up, or the totals less the ones from `end` on. A group left is one with a part before `end`,
 * so its first seq holds.
 */
function partSumsBefore(placed: AgentParts, end: number): Map<string, GroupSum> {
  const { parts } = placed;
  const fromTotals = end > parts.length / 2;
  const groups = new Map<string, GroupSum>();
  if (fromTotals) for (const [key, sums] of placed.totals) groups.set(key, { ...sums });
  const [from, to, sign] = fromTotals ? [end, parts.length, -1 as const] : [0, end, 1 as const];
  for (let index = from; index < to; index += 1) {
    const { part, seq } = parts[index] as PlacedPart;
    addPart(groups, part, seq, sign);
  }
  for (const [key, sums] of groups) if (sums.parts <= 0) groups.delete(key);
  return groups;
}

/** The index of the first item with a seq after `seq` (items are in seq order). */
function firstAfter(items: ReadonlyArray<{ seq: number }>, seq: number): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((items[middle] as { seq: number }).seq <= seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Adds `sum` (sign 1) to or takes it (sign -1) from `sums`; the first seq is kept from adding. */
function addSum(sums: Map<string, CountedSum>, sum: CountedSum, sign: 1 | -1): void {
  const key = countedSumKey(sum.sender, sum.receiver, sum.kind);
  const found = sums.get(key);
  if (!found) {
    if (sign > 0) sums.set(key, { ...sum });
    return;
  }
  found.messages += sign * sum.messages;
  found.completionTokens += sign * sum.completionTokens;
  if (sign > 0) {
    found.firstSeq = Math.min(found.firstSeq, sum.firstSeq);
    found.lastSeq = Math.max(found.lastSeq, sum.lastSeq);
  }
}

function cloneSums(sums: ReadonlyMap<string, CountedSum>): Map<string, CountedSum> {
  return new Map([...sums].map(([key, sum]) => [key, { ...sum }]));
}

/**
 * The sums whose messages were in the agent's view: routing reads only a message's sender,
 * receiver and kind (and an error's meta; errors are never summed), so one stand-in message per
 * sum is routed by the orchestrator's own `agentViewOf`.
 */
function routedSums(fleet: Fleet, agent: string, sums: Map<string, CountedSum>): Map<string, CountedSum> {
  const standIns = new Map<Message, string>();
  for (const [key, sum] of sums) standIns.set(standIn(sum), key);
  const routed = new Map<string, CountedSum>();
  for (const message of agentViewOf(fleet, agent, [...standIns.keys()])) {
    const key = standIns.get(message) as string;
    routed.set(key, sums.get(key) as CountedSum);
  }
  return routed;
}

function standIn(sum: CountedSum): Message {
  return {
    id: '',
    threadId: '',
    parentId: null,
    from: sum.sender,
    to: sum.receiver,
    kind: sum.kind as MessageKind,
    content: '',
    meta: {},
    state: 'complete',
    t: 0,
  };
}
