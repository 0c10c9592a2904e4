import {
  BROADCAST,
  USER,
  type Fleet,
  type Message,
  type MessageKind,
  type TokenUsage,
  type ToolCall,
} from '@shared/domain';
import type { ImportedEvent } from '../../history/ports';
import type { ChatMessage } from './chat-messages';
import type { SessionEnding } from './fleetscope-attributes';
import { HeldAnswers } from './held-answers';
import { RawCalls } from './raw-calls';
import { SaidIndex, textKey, type Said } from './said-index';
import { participant } from './span-values';

/** An event with the span time it belongs at (epoch ms); `t` is set when the batch is sorted. */
export interface Timed {
  ms: number;
  event: ImportedEvent;
  /** A model's answer: at the same time as the inputs of its call, it comes after them. */
  answer?: boolean;
}

export interface AgentInfo {
  name: string;
  model: string | null;
  provider: string | null;
  description: string;
  /** The first system prompt the agent was sent: its configuration, not a message. */
  systemPrompt?: string;
}

type Draft = Parameters<TranscriptState['message']>[3];

/** An input no one was seen saying yet; `settle` looks again and says whether it is written. */
interface PendingInput {
  /** The span time of the model call that received it. */
  ms: number;
  /** When its batch reached the mapper (`TranscriptState.arrivedAt`). */
  arrived: number;
  /** The words, when they would be the user's (null: another sender's, by the input's `name`). */
  text: string | null;
  /** A hint names a speaker not seen yet: it waits even in a session of one process. */
  awaited: boolean;
  /** `final`: nobody said it in time, so it is the user's. Returns true once it is settled. */
  settle: (out: Timed[], final: boolean) => boolean;
}

export interface PendingCall {
  agent: string;
  name: string;
  messageId: string;
}

/**
 * What the mapping of one session remembers between spans: the agents seen, the inputs and
 * outputs already in the transcript (so a model call's repeated history is not repeated), tool
 * calls waiting for their results, and the thread. Its helpers write messages as events.
 */
export class TranscriptState {
  readonly agents = new Map<string, AgentInfo>();
  /** Agents described by their invocation spans, before (or without) doing anything. */
  readonly declared = new Map<string, AgentInfo>();
  /** Per agent, the inputs and outputs already in the transcript (by role and text). */
  readonly seen = new Map<string, Set<string>>();
  readonly pendingCalls = new Map<string, PendingCall>();
  readonly answeredCalls = new Set<string>();
  /** Each agent's last answer (an agent span's output often repeats it). */
  readonly lastOutput = new Map<string, string>();
  /** Everything said in the session, by its normalised words (who said it, in which message). */
  readonly said = new SaidIndex();
  /** Each model call as it was made (`model.call` events). */
  readonly rawCalls = new RawCalls();
  /** Per agent, the digests of the inputs it already received (a call resending history). */
  private readonly received = new Map<string, Set<string>>();
  private readonly receivedRaw = new Map<string, Set<string>>();
  /** Per agent, the digests of what it said (its own words sent back to it are not new). */
  private readonly spoke = new Map<string, Set<string>>();
  /** Inputs that look like the user's, waiting for a speaker (see `deferUserInput`), by span time. */
  private readonly userInputs: PendingInput[] = [];
  /** When the batch being mapped reached the mapper (epoch ms, the receiver's clock). */
  arrivedAt = 0;
  /**
   * The distinct resources (processes) the session's spans came from so far. While there is one,
   * an input no one said is the user's at the end of its batch: a process exports its spans in
   * the order they end, so its speaker's words come before (or with) what its hearer heard, and
   * the live view is never held back for a speaker who cannot come. Once a second process has
   * been seen, another exporter may be behind, and such inputs wait for it (`deferUserInput`).
   * The first exchange of a session whose hearer's process exports before its speaker's was ever
   * seen, without a hint naming the speaker, is taken as the user's.
   */
  processes = 0;
  /** Tool results written, by agent, tool name and result text. */
  private readonly results = new Set<string>();
  /** Answers waiting for their recipients (see HeldAnswers). */
  private readonly answers = new HeldAnswers<Draft>();
  /** Messages whose parent is not the message before them (a tool result's is its call). */
  readonly fixedParents = new Set<string>();
  /** The outermost agent span reported an error. */
  failed = false;
  firstUserText: string | null = null;
  messageCount = 0;
  /** The fleet a Fleetscope export sent (`fleetscope.fleet`): used as it is instead of inferred. */
  fleet: Fleet | null = null;
  /** How the sending run ended, once its root span said so. */
  ending: SessionEnding | null = null;

  agentInfo(name: string): AgentInfo {
    let info = this.agents.get(name);
    if (!info) {
      info = { ...(this.declared.get(name) ?? { name, model: null, provider: null, description: '' }) };
      this.agents.set(name, info);
    }
    return info;
  }

  isNew(agent: string, key: string): boolean {
    let set = this.seen.get(agent);
    if (!set) {
      set = new Set();
      this.seen.set(agent, set);
    }
    if (set.has(key)) return false;
    set.add(key);
    return true;
  }

  /** The agent's system prompt: its configuration (the first one it was sent), not a message. */
  configure(agent: string, systemPrompt: string): void {
    this.agentInfo(agent).systemPrompt ??= systemPrompt;
  }

  /**
   * The participant a sender hint names (an input's `name`, `graph.node.parent_id`). A hint names
   * an agent by its own name, while an agent invoked inside another's span is `caller/agent` here
   * (SpanIndex): a bare name that exactly one such agent ends with is that agent.
   */
  participantNamed(name: string): string {
    const bare = participant(name);
    if (bare.includes('/') || this.agents.has(bare) || this.declared.has(bare)) return bare;
    const nested = new Set<string>();
    for (const known of [...this.agents.keys(), ...this.declared.keys()])
      if (known.endsWith(`/${bare}`)) nested.add(known);
    return nested.size === 1 ? [...nested][0]! : bare;
  }

  /** True when the agent already said this text (an answer later repeated as input). */
  seenText(agent: string, text: string): boolean {
    return this.seenKey(agent, textKey(text));
  }

  /** As `seenText`, by the text's key (`textKey`). */
  seenKey(agent: string, key: string): boolean {
    return this.spoke.get(agent)?.has(key) ?? false;
  }

  /** True the first time `agent` receives this text (after normalising); false for resent history. */
  firstReceipt(agent: string, text: string): boolean {
    // History resent word for word is the common case: known by its raw text, not normalised again.
    if (!addTo(this.receivedRaw, agent, text)) return false;
    return addTo(this.received, agent, textKey(text));
  }

  /** Records that `said.speaker` said `text`, so later inputs repeating it are traced to it. */
  remember(text: string, said: Said): void {
    if (!text) return;
    addTo(this.spoke, said.speaker, textKey(text));
    this.said.add(text, said);
  }

  /**
   * Among speakers who said the same words: the one named by the hint, else the latest before
   * `ms` (ties by name), never `self`. The same for any order the spans came in.
   */
  pickSpeaker(candidates: readonly Said[], self: string, ms: number, hint: string | null): Said | null {
    const others = candidates.filter((said) => said.speaker !== self);
    if (hint) {
      const named = others.find((said) => said.speaker === hint);
      if (named) return named;
    }
    const before = others.filter((said) => said.ms <= ms);
    const latest = before.length > 0;
    let best: Said | null = null;
    for (const said of latest ? before : others) {
      const better = latest ? said.ms > (best?.ms ?? -Infinity) : said.ms < (best?.ms ?? Infinity);
      if (!best || better || (said.ms === best.ms && said.speaker < best.speaker)) best = said;
    }
    return best;
  }

  /** Writes an answer once its recipient is known (see `deliver` and `releaseHeld`). */
  hold(startMs: number, endMs: number, draft: Draft): void {
    this.answers.hold(startMs, endMs, draft);
  }

  get holding(): number {
    return this.answers.size;
  }

  /** Reading one model call's inputs: what they repeat is judged together (see HeldAnswers). */
  beginInputs(): void {
    this.answers.beginCall();
  }

  endInputs(): void {
    this.answers.endCall();
  }

  /** `to` received what `said` holds: the held answer is addressed to it (written by `writeAddressed`). */
  deliver(said: Said, to: string): void {
    this.answers.deliver(said, to);
  }

  /**
   * An input that looks like the user's: another process may say those words in an export that
   * has not arrived yet (its clock or its exporter behind). It waits, and so does everything said
   * at or after its time (`pendingFrom`), so the log keeps the order the words were said in.
   */
  deferUserInput(ms: number, text: string | null, awaited: boolean, settle: PendingInput['settle']): void {
    this.userInputs.push({ ms, arrived: this.arrivedAt, text, awaited, settle });
  }

  /**
   * Each waiting input once more, in span time order: one that someone has said by now is theirs;
   * one whose batch arrived at or before `finalBefore` (epoch ms) is the user's.
   */
  settleUserInputs(out: Timed[], finalBefore = Number.NEGATIVE_INFINITY): void {
    const waiting = this.userInputs.splice(0).sort((a, b) => a.ms - b.ms);
    const oneProcess = this.processes <= 1;
    for (const input of waiting) {
      const final = input.arrived <= finalBefore || (oneProcess && !input.awaited);
      if (!input.settle(out, final)) this.userInputs.push(input);
    }
  }

  /** How many inputs wait for a speaker. */
  get inputsWaiting(): number {
    return this.userInputs.length;
  }

  /** The span time of the earliest waiting input (Infinity when none waits). */
  get pendingFrom(): number {
    let from = Number.POSITIVE_INFINITY;
    for (const input of this.userInputs) from = Math.min(from, input.ms);
    return from;
  }

  /** The earliest waiting input that would be the user's: the session's task as far as can be told yet. */
  get pendingTask(): string | null {
    let first: PendingInput | null = null;
    for (const input of this.userInputs)
      if (input.text !== null && (!first || input.ms < first.ms)) first = input;
    return first?.text ?? null;
  }

  /** Writes the answers given recipients in this batch; further recipients go in `meta.alsoTo`. */
  writeAddressed(out: Timed[]): void {
    this.settleUserInputs(out);
    for (const { startMs, endMs, draft, to, alsoTo } of this.answers.takeAddressed()) {
      const meta = alsoTo.length > 0 ? { ...draft.meta, alsoTo } : draft.meta;
      this.message(out, startMs, endMs, { ...draft, to, meta });
    }
  }

  /**
   * Writes every waiting input (the user's, when no one said it) and every held answer to the one
   * its agent answers (the trace showed no other reader).
   */
  releaseHeld(out: Timed[]): void {
    this.settleUserInputs(out, Number.POSITIVE_INFINITY);
    this.writeAddressed(out);
    for (const held of this.answers.takeHeld()) this.message(out, held.startMs, held.endMs, held.draft);
  }

  /** True when `agent` already has this result of tool `name`. */
  hasResult(agent: string, name: string, content: string): boolean {
    return this.results.has(resultKey(agent, name, content));
  }

  toolCalls(message: ChatMessage, spanId: string, index: number): ToolCall[] {
    return message.toolCalls.map((call, i) => ({
      id: call.id ?? `${spanId}.out${index}.call${i}`,
      name: call.name || 'tool',
      arguments: call.arguments,
    }));
  }

  /** The oldest unanswered call of that name (by this agent when given). */
  callIdByName(agent: string | null, name: string | undefined): string | undefined {
    if (!name) return undefined;
    for (const [id, call] of this.pendingCalls) {
      if (call.name === name && (agent === null || call.agent === agent) && !this.answeredCalls.has(id))
        return id;
    }
    return undefined;
  }

  result(
    out: Timed[],
    startMs: number,
    endMs: number,
    agent: string,
    spanId: string,
    suffix: string,
    result: { callId: string; name: string; content: string; isError: boolean },
  ): void {
    this.answeredCalls.add(result.callId);
    this.results.add(resultKey(agent, result.name, result.content));
    const pending = this.pendingCalls.get(result.callId);
    this.pendingCalls.delete(result.callId);
    const executed: Timed = {
      ms: endMs,
      event: { t: 0, agent, kind: 'tool.executed', payload: { ...result, result: result.content } },
    };
    // An agent called as a tool: its answer is its message to the caller, written once; the
    // tool's result only closes the call.
    const delegate = result.isError
      ? null
      : this.pickSpeaker(this.said.saidWhole(result.content), agent, endMs, null);
    if (delegate && delegate.speaker !== USER) {
      this.deliver(delegate, agent);
      out.push(executed);
      return;
    }
    this.message(
      out,
      startMs,
      endMs,
      {
        id: `${spanId}.${suffix}`,
        from: agent,
        to: agent,
        kind: 'tool',
        content: result.content,
        meta: {},
        toolCalls: [],
        toolResults: [{ ...result, name: result.name || 'tool' }],
      },
      pending?.messageId,
    );
    out.push(executed);
  }

  say(
    out: Timed[],
    ms: number,
    from: string,
    to: string,
    kind: MessageKind,
    content: string,
    meta: Record<string, unknown>,
    spanId: string,
    suffix: string,
  ): void {
    this.message(out, ms, ms, { id: `${spanId}.${suffix}`, from, to, kind, content, meta, toolCalls: [] });
  }

  message(
    out: Timed[],
    startMs: number,
    endMs: number,
    draft: {
      id: string;
      from: string;
      to: string;
      kind: MessageKind;
      content: string;
      meta: Record<string, unknown>;
      toolCalls: ToolCall[];
      toolResults?: Message['toolResults'];
      usage?: TokenUsage;
      /** The model's answer in its call (see `Timed.answer`). */
      answer?: boolean;
    },
    parentOverride?: string,
  ): void {
    // Thread and parent (the message before it) are set in log order when written
    // (SessionMapper.timeline); a tool result's parent is its call, fixed here.
    const threadId = '';
    const parentId = parentOverride ?? null;
    if (parentOverride) this.fixedParents.add(draft.id);
    this.messageCount++;
    if (draft.from !== USER && draft.from !== 'system' && draft.from !== BROADCAST)
      this.agentInfo(draft.from);
    const agent = draft.from === USER || draft.from === 'system' ? null : draft.from;
    const { id: messageId, from, to, kind } = draft;
    const answer = draft.answer === true;
    out.push({
      ms: startMs,
      answer,
      event: {
        t: 0,
        agent,
        kind: 'message.started',
        payload: { messageId, threadId, parentId, from, to, kind },
      },
    });
    const message: Message = {
      id: messageId,
      threadId,
      parentId,
      from,
      to,
      kind,
      content: draft.content,
      meta: draft.meta,
      ...(draft.toolCalls.length > 0 ? { toolCalls: draft.toolCalls } : {}),
      ...(draft.toolResults?.length ? { toolResults: draft.toolResults } : {}),
      ...(draft.usage ? { usage: draft.usage } : {}),
      state: 'complete',
      // Set from the event's clamped time when written (see `map`).
      t: 0,
    };
    out.push({ ms: endMs, answer, event: { t: 0, agent, kind: 'message.completed', payload: { message } } });
  }
}

function resultKey(agent: string, name: string, content: string): string {
  return `${agent}\u0000${name}\u0000${textKey(content)}`;
}

function addTo(map: Map<string, Set<string>>, agent: string, key: string): boolean {
  let set = map.get(agent);
  if (!set) {
    set = new Set();
    map.set(agent, set);
  }
  if (set.has(key)) return false;
  set.add(key);
  return true;
}

/** An error event for a span that reported failure and produced nothing else. */
export function failIn(out: Timed[], ms: number, agent: string, message: string): void {
  out.push({ ms, event: { t: 0, agent, kind: 'error', payload: { code: 'span-error', message } } });
}
