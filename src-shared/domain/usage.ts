import { z } from 'zod';
import type { TokenUsage } from './message';

const count = z.number().int().nonnegative();

/**
 * Usage folded over some model calls (a session, an agent, an edge). `cost` sums only the priced
 * calls, in the price table's currency (US dollars); `unpricedCalls` counts the calls with tokens
 * but no known price, so a total is complete only when it is 0 (see `formatCost`). `busyMs` sums
 * the calls' durations (what the agents spent waiting on models).
 */
export const usageFiguresSchema = z.object({
  /** Model calls that reported usage. */
  calls: count,
  inputTokens: count,
  outputTokens: count,
  cachedTokens: count,
  reasoningTokens: count,
  cost: z.number().nonnegative(),
  unpricedCalls: count,
  busyMs: z.number().nonnegative(),
});
export type UsageFigures = z.infer<typeof usageFiguresSchema>;

export function emptyFigures(): UsageFigures {
  return {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    reasoningTokens: 0,
    cost: 0,
    unpricedCalls: 0,
    busyMs: 0,
  };
}

/** Adds one call's usage to `figures` (in place) and returns it. */
export function addUsageTo(figures: UsageFigures, usage: TokenUsage): UsageFigures {
  figures.calls += 1;
  figures.inputTokens += usage.prompt;
  figures.outputTokens += usage.completion;
  figures.cachedTokens += usage.cached ?? 0;
  figures.reasoningTokens += usage.reasoning ?? 0;
  if (typeof usage.cost === 'number') figures.cost += usage.cost;
  else if (usage.prompt + usage.completion > 0) figures.unpricedCalls += 1;
  figures.busyMs += usage.durationMs ?? 0;
  return figures;
}

/** Adds `more` to `figures` (in place) and returns it. */
export function addFigures(figures: UsageFigures, more: UsageFigures): UsageFigures {
  figures.calls += more.calls;
  figures.inputTokens += more.inputTokens;
  figures.outputTokens += more.outputTokens;
  figures.cachedTokens += more.cachedTokens;
  figures.reasoningTokens += more.reasoningTokens;
  figures.cost += more.cost;
  figures.unpricedCalls += more.unpricedCalls;
  figures.busyMs += more.busyMs;
  return figures;
}

/** Dollars with enough digits for small sums: $0.42, $0.0031, $12.50. */
export function formatDollars(cost: number): string {
  if (cost === 0) return '$0.00';
  if (cost < 0.01) return `$${cost.toPrecision(2)}`;
  return `$${cost.toFixed(2)}`;
}

/**
 * A cost total that says when it is incomplete: "$0.42", "$0.42 + 3 calls without a price",
 * "1 call without a price". Never shows an incomplete total as if it were complete.
 */
export function formatCost(figures: Pick<UsageFigures, 'cost' | 'unpricedCalls'>): string {
  const unpriced = figures.unpricedCalls;
  if (unpriced === 0) return formatDollars(figures.cost);
  const calls = `${unpriced} ${unpriced === 1 ? 'call' : 'calls'} without a price`;
  return figures.cost > 0 ? `${formatDollars(figures.cost)} + ${calls}` : calls;
}

/**
 * A price the user sets for one provider and model, overriding the price table: US dollars per
 * million input, cached-input and output tokens. `model` '*' matches every model of the provider
 * (a local server at 0); `provider` '*' matches the model whatever the provider, or none (imports). Cached input tokens cost `cachedInputPerMTok`, else `inputPerMTok`.
 */
export const priceOverrideSchema = z
  .object({
    provider: z.string().trim().min(1).max(200),
    model: z.string().trim().min(1).max(200),
    inputPerMTok: z.number().nonnegative().max(100_000),
    outputPerMTok: z.number().nonnegative().max(100_000),
    cachedInputPerMTok: z.number().nonnegative().max(100_000).optional(),
  })
  .strict();
export type PriceOverride = z.infer<typeof priceOverrideSchema>;

/** Prices one call's usage: dollars, or null when no price is known for its provider and model. */
export type UsagePricer = (usage: TokenUsage) => number | null;

/**
 * One call's usage in a line, as the CLI and the exports print it: "1000 in (400 cached), 200 out
 * (50 reasoning), gpt-4o-mini, $0.00021, first token 120 ms, 840 ms". A call with tokens but no
 * known price says "no price".
 */
export function describeUsage(usage: TokenUsage): string {
  const parts = [
    `${usage.prompt} in${usage.cached ? ` (${usage.cached} cached)` : ''}`,
    `${usage.completion} out${usage.reasoning ? ` (${usage.reasoning} reasoning)` : ''}`,
  ];
  if (usage.model) parts.push(usage.model);
  if (typeof usage.cost === 'number') parts.push(formatDollars(usage.cost));
  else if (usage.prompt + usage.completion > 0) parts.push('no price');
  if (usage.firstTokenMs !== undefined) parts.push(`first token ${Math.round(usage.firstTokenMs)} ms`);
  if (usage.durationMs !== undefined) parts.push(`${Math.round(usage.durationMs)} ms`);
  return parts.join(', ');
}

/** A fold in a line: "2800 tokens (2500 in, 300 out, 400 cached, 50 reasoning), $0.42, 2 calls, 1.2 s busy". */
export function describeFigures(figures: UsageFigures): string {
  const details = [`${figures.inputTokens} in`, `${figures.outputTokens} out`];
  if (figures.cachedTokens) details.push(`${figures.cachedTokens} cached`);
  if (figures.reasoningTokens) details.push(`${figures.reasoningTokens} reasoning`);
  const calls = `${figures.calls} ${figures.calls === 1 ? 'call' : 'calls'}`;
  return (
    `${figures.inputTokens + figures.outputTokens} tokens (${details.join(', ')}), ${formatCost(figures)}, ` +
    `${calls}, ${(figures.busyMs / 1000).toFixed(1)} s busy`
  );
}
