import { shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import type { SessionUsage } from '@shared/contract';
import { formatCost, formatDollars, type UsageFigures } from '@shared/domain';
import { useBridge } from '../bridge';
import { formatDuration } from '../ui/format';

export interface CompareUsage {
  a: SessionUsage | null;
  b: SessionUsage | null;
}

/** The two compared sessions' usage (`sessions.usage` at their ends); a later pair replaces an earlier. */
export function useCompareUsage(ids: Ref<{ a: string; b: string }>): ShallowRef<CompareUsage> {
  const usage = shallowRef<CompareUsage>({ a: null, b: null });
  let asked = 0;
  watch(
    () => `${ids.value.a}\u0000${ids.value.b}`,
    async () => {
      const mine = ++asked;
      const bridge = useBridge();
      const [a, b] = await Promise.all([
        bridge.call('sessions.usage', { id: ids.value.a }),
        bridge.call('sessions.usage', { id: ids.value.b }),
      ]);
      if (mine !== asked) return;
      usage.value = { a: a.ok ? a.value : null, b: b.ok ? b.value : null };
    },
    { immediate: true },
  );
  return usage;
}

/** An agent's figures in one side's usage (null: none, or the usage is not there yet). */
export function agentUsage(usage: SessionUsage | null, name: string): UsageFigures | null {
  return usage?.agents.find((agent) => agent.name === name)?.figures ?? null;
}

/** A cost cell: the total, saying how many calls had no price; "–" when there were no model calls. */
export function costCell(figures: UsageFigures | null): string {
  return figures && figures.calls > 0 ? formatCost(figures) : '–';
}

/** B's cost difference from A ("+$0.0012", "−$0.40"); empty when equal or either side is missing. */
export function costDelta(a: UsageFigures | null, b: UsageFigures | null): string {
  if (!a || !b || a.cost === b.cost) return '';
  const diff = b.cost - a.cost;
  return `${diff > 0 ? '+' : '−'}${formatDollars(Math.abs(diff))}`;
}

/** A busy-time cell: how long the model calls took in all; "–" when there were no model calls. */
export function busyCell(figures: UsageFigures | null): string {
  return figures && figures.calls > 0 ? formatDuration(figures.busyMs) : '–';
}

/** B's busy-time difference from A ("+1.2 s"); empty when equal or either side has no calls. */
export function busyDelta(a: UsageFigures | null, b: UsageFigures | null): string {
  if (!a || !b || a.calls === 0 || b.calls === 0 || a.busyMs === b.busyMs) return '';
  const diff = b.busyMs - a.busyMs;
  return `${diff > 0 ? '+' : '−'}${formatDuration(Math.abs(diff))}`;
}
