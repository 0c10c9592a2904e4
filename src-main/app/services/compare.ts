import { diffArrays, diffWords } from 'diff';
import type {
  AgentFigures,
  Compare,
  CompareAgent,
  CompareEdge,
  ComparePair,
  CompareSide,
  DiffSegment,
  StoredMessage,
} from '@shared/contract';
import type { HistoryStore } from '../../history';
import { AppError } from '../handlers/errors';

/** Texts longer than this (either side) are not diffed word by word: the pair says only that they differ. */
export const MAX_DIFF_CHARS = 50_000;
/** Milliseconds one word diff may take before it is given up (the pair then has no segments). */
const DIFF_TIMEOUT_MS = 50;
/** Comparisons whose frame is kept, so paging through one does not work it out again. */
const FRAMES_KEPT = 8;

/**
 * Messages after the divergence are aligned by content (an inserted message shifts no pair after
 * it) when neither session has more than this many after it; longer tails align by position.
 */
export const ALIGN_TAIL_LIMIT = 2_000;

/** Pairs after the common prefix: each an index into A's and B's messages (0-based), or null. */
type Alignment = Array<[number | null, number | null]>;

const ZERO: AgentFigures = { messages: 0, tokens: 0, timeMs: 0, toolCalls: 0, errors: 0 };

/** Same sender, receiver, kind and text. */
export function sameMessage(a: StoredMessage, b: StoredMessage): boolean {
  return a.from === b.from && a.to === b.to && a.kind === b.kind && a.content === b.content;
}

/** Word-level differences of two texts, or null when too long (or too different) to diff quickly. */
export function wordDiff(a: string, b: string): DiffSegment[] | null {
  if (a.length > MAX_DIFF_CHARS || b.length > MAX_DIFF_CHARS) return null;
  const changes = diffWords(a, b, { timeout: DIFF_TIMEOUT_MS });
  if (changes === undefined) return null;
  const segments: DiffSegment[] = [];
  for (const change of changes) {
    const side = change.added ? 'b' : change.removed ? 'a' : 'both';
    const last = segments.at(-1);
    if (last && last.side === side) last.text += change.value;
    else segments.push({ text: change.value, side });
  }
  return segments;
}

export function comparePair(
  position: number,
  a: StoredMessage | null,
  b: StoredMessage | null,
  words = true,
): ComparePair {
  const same = a !== null && b !== null && sameMessage(a, b);
  return {
    position,
    a,
    b,
    same,
    segments: words && a !== null && b !== null && !same ? wordDiff(a.content, b.content) : null,
  };
}

/**
 * Aligns two message lists by content (`diffArrays`, equal when `sameMessage`): equal messages
 * side by side, a run only A has beside a run only B has pair by pair (an edit shows as a change),
 * and what is left over beside nothing. `offsetA` / `offsetB` are added to the indexes. Pure.
 */
export function alignByContent(
  a: readonly StoredMessage[],
  b: readonly StoredMessage[],
  offsetA = 0,
  offsetB = 0,
): Alignment {
  const rows: Alignment = [];
  let i = offsetA;
  let j = offsetB;
  let onlyA: number[] = [];
  let onlyB: number[] = [];
  const settle = () => {
    for (let k = 0; k < Math.max(onlyA.length, onlyB.length); k++)
      rows.push([onlyA[k] ?? null, onlyB[k] ?? null]);
    onlyA = [];
    onlyB = [];
  };
  for (const change of diffArrays(a as StoredMessage[], b as StoredMessage[], { comparator: sameMessage })) {
    const count = change.count ?? change.value.length;
    if (change.removed) for (let k = 0; k < count; k++) onlyA.push(i++);
    else if (change.added) for (let k = 0; k < count; k++) onlyB.push(j++);
    else {
      settle();
      for (let k = 0; k < count; k++) rows.push([i++, j++]);
    }
  }
  settle();
  return rows;
}

/** The whole comparison's frame: sides, prefix, divergence, figures and edges (no pairs). */
export type CompareFrame = Omit<Compare, 'pairs' | 'offset' | 'hasMore'>;

/**
 * Compares two stored sessions. Messages are aligned by position; the common prefix is the run of
 * equal pairs from the start, found without reading what the two share by reference (a fork and
 * its parent share their rows up to the fork point), then a page at a time.
 */
export class SessionComparer {
  /** Frames by the two sessions and their versions (a session that changes gets a new frame). */
  private readonly frames = new Map<string, CompareFrame>();
  /** The content alignment of a kept frame's tails, and whether the two share any history. */
  private readonly tails = new WeakMap<CompareFrame, { alignment: Alignment | null; related: boolean }>();

  constructor(private readonly store: HistoryStore) {}

  /** Drops the kept frames: the next comparison works everything out again (benches measure that). */
  forgetFrames(): void {
    this.frames.clear();
  }

  /** The frame of the comparison plus the pairs `offset + 1 .. offset + limit`. */
  compare(aId: string, bId: string, offset: number, limit: number): Compare {
    const frame = this.frame(aId, bId);
    const pairs = this.pairs(aId, bId, offset, limit, frame);
    return { ...frame, offset, pairs, hasMore: offset + pairs.length < frame.totalPairs };
  }

  frame(aId: string, bId: string): CompareFrame {
    const store = this.store;
    store.flush();
    const a = store.getSession(aId);
    const b = store.getSession(bId);
    if (!a) throw new AppError('not-found', `No session with id "${aId}".`);
    if (!b) throw new AppError('not-found', `No session with id "${bId}".`);
    const version = (s: typeof a.summary) =>
      `${s.id}:${s.updatedAt}:${s.messageCount}:${s.status}:${s.tokens}`;
    const key = `${version(a.summary)}|${version(b.summary)}`;
    const kept = this.frames.get(key);
    if (kept) return kept;
    const q = store.comparing;
    const countA = store.countMessages(aId);
    const countB = store.countMessages(bId);
    const shared = q.shared(aId, bId);
    const sharedMessages = Math.min(q.countUpTo(aId, shared.sharedSeq), countA, countB);
    // Beyond what they share by reference, compare pair by pair until they differ.
    const commonPrefix = sharedMessages + q.samePairsFrom(aId, bId, sharedMessages);
    const related = commonPrefix > 0 || shared.ancestorId !== null;
    const tailA = countA - commonPrefix;
    const tailB = countB - commonPrefix;
    const alignment =
      related && tailA > 0 && tailB > 0 && Math.max(tailA, tailB) <= ALIGN_TAIL_LIMIT
        ? alignByContent(
            q.slice(aId, commonPrefix, tailA),
            q.slice(bId, commonPrefix, tailB),
            commonPrefix,
            commonPrefix,
          )
        : null;
    const totalPairs = commonPrefix + (alignment ? alignment.length : Math.max(tailA, tailB));
    const figuresA = q.agentFigures(aId);
    const figuresB = q.agentFigures(bId);
    const frame: CompareFrame = {
      a: this.side(aId, a.summary, figuresA),
      b: this.side(bId, b.summary, figuresB),
      commonPrefix,
      divergeAt: commonPrefix < totalPairs ? commonPrefix + 1 : null,
      ancestorId: shared.ancestorId,
      totalPairs,
      agents: this.agents(figuresA, figuresB),
      edges: this.edges(aId, bId),
    };
    this.frames.set(key, frame);
    this.tails.set(frame, { alignment, related });
    while (this.frames.size > FRAMES_KEPT) this.frames.delete(this.frames.keys().next().value as string);
    return frame;
  }

  /**
   * Pairs `offset + 1 .. offset + limit` of the comparison: by position through the common prefix,
   * then by the content alignment when there is one. Unrelated sessions get no word diff.
   */
  pairs(aId: string, bId: string, offset: number, limit: number, frame: CompareFrame): ComparePair[] {
    const count = Math.max(0, Math.min(limit, frame.totalPairs - offset));
    if (count === 0) return [];
    const { alignment, related } = this.tails.get(frame) ?? { alignment: null, related: true };
    const q = this.store.comparing;
    if (!alignment) {
      const left = q.slice(aId, offset, count);
      const right = q.slice(bId, offset, count);
      return Array.from({ length: count }, (_, index) =>
        comparePair(offset + index + 1, left[index] ?? null, right[index] ?? null, related),
      );
    }
    const rows = Array.from({ length: count }, (_, index): [number | null, number | null] => {
      const at = offset + index;
      return at < frame.commonPrefix ? [at, at] : (alignment[at - frame.commonPrefix] ?? [null, null]);
    });
    const fetch = (id: string, side: 0 | 1) => {
      const wanted = rows.map((row) => row[side]).filter((index): index is number => index !== null);
      if (wanted.length === 0) return new Map<number, StoredMessage>();
      const from = Math.min(...wanted);
      const messages = q.slice(id, from, Math.max(...wanted) - from + 1);
      return new Map(messages.map((message, index) => [from + index, message]));
    };
    const left = fetch(aId, 0);
    const right = fetch(bId, 1);
    return rows.map(([i, j], index) =>
      comparePair(
        offset + index + 1,
        i === null ? null : (left.get(i) ?? null),
        j === null ? null : (right.get(j) ?? null),
      ),
    );
  }

  private side(
    id: string,
    summary: NonNullable<ReturnType<HistoryStore['getSession']>>['summary'],
    figures: Map<string, AgentFigures>,
  ): CompareSide {
    const stop = this.store.comparing.lastStop(id);
    let toolCalls = 0;
    let errors = 0;
    for (const entry of figures.values()) {
      toolCalls += entry.toolCalls;
      errors += entry.errors;
    }
    return {
      sessionId: id,
      title: summary.title,
      status: summary.status,
      stopReason: summary.stopReason,
      stopDetail: stop?.detail ?? null,
      forkOf: summary.forkOf ?? null,
      messages: summary.messageCount,
      tokens: summary.tokens,
      durationMs: summary.durationMs,
      toolCalls,
      errors,
    };
  }

  private agents(a: Map<string, AgentFigures>, b: Map<string, AgentFigures>): CompareAgent[] {
    const names = [...new Set([...a.keys(), ...b.keys()])];
    return names
      .map((name) => {
        const left = a.get(name) ?? ZERO;
        const right = b.get(name) ?? ZERO;
        const differs =
          left.messages !== right.messages ||
          left.tokens !== right.tokens ||
          left.toolCalls !== right.toolCalls ||
          left.errors !== right.errors;
        return { name, a: { ...left }, b: { ...right }, differs };
      })
      .sort(
        (x, y) => y.a.messages + y.b.messages - (x.a.messages + x.b.messages) || x.name.localeCompare(y.name),
      );
  }

  private edges(aId: string, bId: string): CompareEdge[] {
    const edges = new Map<string, CompareEdge>();
    const add = (
      side: 'a' | 'b',
      list: Array<{ from: string; to: string; kind: 'message' | 'handoff'; count: number }>,
    ) => {
      for (const edge of list) {
        const key = JSON.stringify([edge.from, edge.to, edge.kind]);
        const entry = edges.get(key) ?? {
          from: edge.from,
          to: edge.to,
          kind: edge.kind,
          a: 0,
          b: 0,
          differs: false,
        };
        entry[side] += edge.count;
        edges.set(key, entry);
      }
    };
    add('a', [...this.store.comparing.edgeCounts(aId).values()]);
    add('b', [...this.store.comparing.edgeCounts(bId).values()]);
    return [...edges.values()]
      .map((edge) => ({ ...edge, differs: edge.a !== edge.b }))
      .sort(
        (x, y) => x.from.localeCompare(y.from) || x.to.localeCompare(y.to) || x.kind.localeCompare(y.kind),
      );
  }
}
