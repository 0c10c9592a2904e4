import { diffWords } from 'diff';
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

export function comparePair(position: number, a: StoredMessage | null, b: StoredMessage | null): ComparePair {
  const same = a !== null && b !== null && sameMessage(a, b);
  return {
    position,
    a,
    b,
    same,
    segments: a !== null && b !== null && !same ? wordDiff(a.content, b.content) : null,
  };
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

  constructor(private readonly store: HistoryStore) {}

  /** Drops the kept frames: the next comparison works everything out again (benches measure that). */
  forgetFrames(): void {
    this.frames.clear();
  }

  /** The frame of the comparison plus the pairs `offset + 1 .. offset + limit`. */
  compare(aId: string, bId: string, offset: number, limit: number): Compare {
    const frame = this.frame(aId, bId);
    const pairs = this.pairs(aId, bId, offset, limit, frame.totalPairs);
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
    const totalPairs = Math.max(countA, countB);
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
    while (this.frames.size > FRAMES_KEPT) this.frames.delete(this.frames.keys().next().value as string);
    return frame;
  }

  pairs(aId: string, bId: string, offset: number, limit: number, total: number): ComparePair[] {
    const count = Math.max(0, Math.min(limit, total - offset));
    if (count === 0) return [];
    const left = this.store.comparing.slice(aId, offset, count);
    const right = this.store.comparing.slice(bId, offset, count);
    return Array.from({ length: count }, (_, index) =>
      comparePair(offset + index + 1, left[index] ?? null, right[index] ?? null),
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
