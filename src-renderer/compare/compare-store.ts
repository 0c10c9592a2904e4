import { defineStore } from 'pinia';
import { markRaw, ref, shallowRef } from 'vue';
import type { Compare, CompareExportFormat, ComparePair, SessionListItem } from '@shared/contract';
import { isLiveStatus } from '@shared/domain';
import { useBridge } from '../bridge';
import { createFailureReporter } from '../ui/failure';
import { useToastStore } from '../ui/toasts-store';
import { pageOf } from './compare-rows';
import { agentColor } from '../session/agent-colors';
import { agentsOfFleet } from '../session/graph-mapper';
import { loadSideGraph, type SessionDetail, type SideGraph } from './compare-graphs';

const sizeOf = (bytes: number): string =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1048576).toFixed(1)} MB`;

/** Pairs per `branches.compare` page. */
export const COMPARE_PAGE = 100;

/** Everything a comparison says about the two sessions besides its pairs. */
export type CompareSummary = Omit<Compare, 'pairs' | 'offset' | 'hasMore'>;

/**
 * The open comparison (`branches.compare`): its summary at once, its aligned pairs a page at a
 * time as the view scrolls to them, and its export. Also the two sessions picked on the list.
 */
export const useCompareStore = defineStore('compare', () => {
  const bridge = useBridge();
  const toasts = useToastStore();
  const pair = ref<{ a: string; b: string } | null>(null);
  const summary = shallowRef<CompareSummary | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);
  const exporting = ref<CompareExportFormat | null>(null);
  const fail = createFailureReporter(error);
  // Shown once, on the view's error line, not as a toast too.
  const failLoudly = createFailureReporter(error);
  /** Loaded pages by page number; `pagesVersion` changes when one arrives. */
  let pages = markRaw(new Map<number, ComparePair[]>());
  const pagesVersion = ref(0);
  const pending = new Set<number>();
  let generation = 0;
  /** Each agent's colour as the session view draws it (by the left session's fleet). */
  const colors = shallowRef(new Map<string, string>());
  const colorOf = (name: string): string => colors.value.get(name) ?? agentColor(name, -1);
  /**
   * Whether one session is a fork of the other: the parent is then always shown on the left, so
   * the fork's change reads as its change (Swap is off).
   */
  const forkPair = ref(false);
  /** Each side's graph as the session view draws it; a string says why it could not be read. */
  const graphs = shallowRef<{ a: SideGraph | string | null; b: SideGraph | string | null }>({
    a: null,
    b: null,
  });
  let details: { a: SessionDetail; b: SessionDetail } | null = null;

  async function loadGraphs(mine: number): Promise<void> {
    const both = details;
    if (!both) return;
    const [a, b] = await Promise.all([loadSideGraph(bridge, both.a), loadSideGraph(bridge, both.b)]);
    if (mine === generation) graphs.value = { a, b };
  }

  function keep(result: Compare): void {
    const { pairs, offset: _offset, hasMore: _hasMore, ...rest } = result;
    summary.value = rest;
    pages.set(pageOf(result.offset + 1, COMPARE_PAGE), pairs);
  }

  async function fetchPage(page: number, mine: number): Promise<void> {
    const current = pair.value;
    if (!current || pending.has(page) || pages.has(page)) return;
    pending.add(page);
    const result = await bridge.call('branches.compare', {
      a: current.a,
      b: current.b,
      offset: page * COMPARE_PAGE,
      limit: COMPARE_PAGE,
    });
    if (mine !== generation) return;
    pending.delete(page);
    if (!result.ok) return fail(result.error, undefined, 'Could not load the comparison');
    keep(result.value);
    pagesVersion.value += 1;
  }

  /**
   * Opens the comparison of `a` and `b`: the summary and the first page, then the page where they
   * part, and both graphs. A fork is always shown on the right of its parent, whichever was named
   * first: its change reads as its change (`pair` says the order shown).
   */
  async function open(a: string, b: string): Promise<void> {
    const mine = ++generation;
    pair.value = { a, b };
    forkPair.value = false;
    graphs.value = { a: null, b: null };
    details = null;
    summary.value = null;
    error.value = null;
    pages = markRaw(new Map());
    pending.clear();
    pagesVersion.value += 1;
    loading.value = true;
    colors.value = new Map();
    // Every answer carries the summary: the first asks for the page where the two probably part,
    // so a long common prefix (folded in the view) costs no page of its own.
    const relation = await relationOf(a, b);
    if (mine !== generation) return;
    if (relation.swap) pair.value = { a: b, b: a };
    forkPair.value = relation.forkPair;
    details = relation.details;
    colors.value = relation.colors;
    void loadGraphs(mine);
    const hint = relation.forkPoint;
    await fetchPage(hint === null ? 0 : pageOf(hint, COMPARE_PAGE), mine);
    if (mine !== generation) return;
    loading.value = false;
    const shape = summary.value as CompareSummary | null;
    if (!shape) return;
    if (shape.divergeAt) void fetchPage(pageOf(shape.divergeAt, COMPARE_PAGE), mine);
    else if (shape.totalPairs > 0) void fetchPage(0, mine);
  }

  /**
   * How two sessions are related: where they likely part, from their fork points (one forked from
   * the other, or both from one parent; null when neither says; only a hint, the answer decides),
   * whether `a` is a fork of `b` (then they swap sides), and the agents' colours.
   */
  async function relationOf(
    a: string,
    b: string,
  ): Promise<{
    forkPoint: number | null;
    swap: boolean;
    forkPair: boolean;
    colors: Map<string, string>;
    details: { a: SessionDetail; b: SessionDetail } | null;
  }> {
    const [first, second] = await Promise.all([
      bridge.call('sessions.get', { id: a }),
      bridge.call('sessions.get', { id: b }),
    ]);
    if (!first.ok || !second.ok)
      return { forkPoint: null, swap: false, forkPair: false, colors: new Map(), details: null };
    const forkA = first.value.summary.forkOf ?? null;
    const forkB = second.value.summary.forkOf ?? null;
    const swap = forkA?.sessionId === b;
    const forkPair = swap || forkB?.sessionId === a;
    const colors = new Map<string, string>();
    for (const fleet of swap
      ? [second.value.fleet, first.value.fleet]
      : [first.value.fleet, second.value.fleet])
      for (const agent of agentsOfFleet(fleet))
        if (!colors.has(agent.name)) colors.set(agent.name, agent.color ?? agentColor(agent.name, -1));
    let forkPoint: number | null = null;
    if (forkB?.sessionId === a) forkPoint = forkB.atMessage;
    else if (swap) forkPoint = forkA.atMessage;
    else if (forkA && forkB && forkA.sessionId === forkB.sessionId)
      forkPoint = Math.min(forkA.atMessage, forkB.atMessage);
    const details = swap ? { a: second.value, b: first.value } : { a: first.value, b: second.value };
    return { forkPoint, swap, forkPair, colors, details };
  }

  function close(): void {
    generation += 1;
    pair.value = null;
    summary.value = null;
    graphs.value = { a: null, b: null };
    details = null;
    pages = markRaw(new Map());
    pending.clear();
  }

  /** Pair `position` (1 = the task) once its page has arrived. Read `pagesVersion` to react to arrivals. */
  function pairAt(position: number): ComparePair | null {
    return pages.get(pageOf(position, COMPARE_PAGE))?.[(position - 1) % COMPARE_PAGE] ?? null;
  }

  /** Loads the pages holding pairs `from`..`to` that have not arrived yet. */
  function ensure(from: number, to: number): void {
    const total = summary.value?.totalPairs ?? 0;
    if (total === 0) return;
    const first = pageOf(Math.max(1, from), COMPARE_PAGE);
    const last = pageOf(Math.min(total, Math.max(from, to)), COMPARE_PAGE);
    for (let page = first; page <= last; page++) void fetchPage(page, generation);
  }

  /** Reloads the summary and the pages in view (a compared session is still running). */
  async function refresh(): Promise<void> {
    const current = pair.value;
    if (!current) return;
    const mine = generation;
    const loaded = [...pages.keys()];
    const fresh = await Promise.all(
      loaded.map((page) =>
        bridge.call('branches.compare', {
          a: current.a,
          b: current.b,
          offset: page * COMPARE_PAGE,
          limit: COMPARE_PAGE,
        }),
      ),
    );
    if (mine !== generation) return;
    pages = markRaw(new Map());
    for (const result of fresh) if (result.ok) keep(result.value);
    pagesVersion.value += 1;
    await loadGraphs(mine);
  }

  async function exportAs(format: CompareExportFormat): Promise<string | null> {
    const current = pair.value;
    if (!current || exporting.value) return null;
    exporting.value = format;
    try {
      const result = await bridge.call('branches.exportCompare', { a: current.a, b: current.b, format });
      if (!result.ok) return failLoudly(result.error, null, 'Export failed');
      const { fileName, bytes, path } = result.value;
      if (bridge.surface === 'browser') {
        const href = `/exports/${encodeURIComponent(fileName)}`;
        const link = document.createElement('a');
        link.href = href;
        link.download = fileName;
        link.style.display = 'none';
        document.body.append(link);
        link.click();
        link.remove();
        toasts.push(`Downloaded ${fileName} (${sizeOf(bytes)}).`, 'info', 8000);
      } else toasts.push(`Saved ${fileName} (${sizeOf(bytes)}) to ${path}.`, 'info', 15_000);
      return path;
    } finally {
      exporting.value = null;
    }
  }

  let refreshTimer: ReturnType<typeof setTimeout> | null = null;
  bridge.onDidReceiveEvent((event) => {
    if (event.channel !== 'store.changed' || event.payload.topic !== 'sessions') return;
    const current = summary.value;
    if (!current || !(isLiveStatus(current.a.status) || isLiveStatus(current.b.status))) return;
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      void refresh();
    }, 1000);
  });

  /** Sessions to compare with (the "Compare with…" picker): newest first, matching `search`. */
  async function findSessions(search: string): Promise<SessionListItem[] | string> {
    const text = search.trim();
    const result = await bridge.call('sessions.list', { limit: 30, ...(text ? { search: text } : {}) });
    return result.ok ? result.value.items : result.error.message;
  }

  /** Sessions picked on the list for a comparison, oldest pick first (at most two). */
  const picked = ref<Array<{ id: string; title: string }>>([]);
  function togglePick(id: string, title: string): void {
    picked.value = picked.value.some((entry) => entry.id === id)
      ? picked.value.filter((entry) => entry.id !== id)
      : [...picked.value, { id, title }].slice(-2);
  }
  function clearPicks(): void {
    picked.value = [];
  }

  return {
    pair,
    summary,
    loading,
    error,
    exporting,
    pagesVersion,
    colorOf,
    forkPair,
    graphs,
    open,
    close,
    pairAt,
    ensure,
    refresh,
    exportAs,
    picked,
    togglePick,
    clearPicks,
    findSessions,
  };
});
