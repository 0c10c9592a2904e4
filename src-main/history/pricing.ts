import { calcPrice } from '@pydantic/genai-prices';
import type { PriceOverride, TokenUsage, UsagePricer } from '@shared/domain';

/** Price overrides: a list, or a function that reads the current list (Settings, kept in the store). */
export type PriceSource = readonly PriceOverride[] | (() => readonly PriceOverride[]);

/**
 * Prices model calls from `@pydantic/genai-prices`: a price table maintained by Pydantic (the
 * Logfire team) for hundreds of models across OpenAI, Anthropic, Google, Groq, Mistral and
 * others, with cached-token and tiered prices, shipped inside the package so pricing works
 * offline (it fetches nothing unless asked to, and it is never asked to here). Prices are in US
 * dollars; `overrides` (Settings > priceOverrides) win over the table, an exact model before the
 * provider's `*`, and those before a model's price for provider `*` (any provider: imported calls
 * often name none). A call whose model is unknown to both has no price (null), never 0.
 */
export function createPricer(overrides: readonly PriceOverride[] = []): UsagePricer {
  const exact = new Map<string, PriceOverride>();
  const anyModel = new Map<string, PriceOverride>();
  for (const override of overrides) {
    if (override.model === '*') anyModel.set(override.provider, override);
    else exact.set(`${override.provider}\u0000${override.model}`, override);
  }
  return (usage) => {
    const provider = usage.provider ?? '';
    const model = usage.model ?? '';
    const override =
      exact.get(`${provider}\u0000${model}`) ?? anyModel.get(provider) ?? exact.get(`*\u0000${model}`);
    if (override) return overridePrice(usage, override);
    if (model === '') return null;
    return tablePrice(usage, provider);
  };
}

/** Dollars by an override's per-million-token prices. */
function overridePrice(usage: TokenUsage, override: PriceOverride): number {
  const cached = Math.min(usage.cached ?? 0, usage.prompt);
  const cachedRate = override.cachedInputPerMTok ?? override.inputPerMTok;
  return (
    ((usage.prompt - cached) * override.inputPerMTok +
      cached * cachedRate +
      usage.completion * override.outputPerMTok) /
    1_000_000
  );
}

/**
 * Dollars by the table, looked up by model (and provider where the table knows the id; a fleet's
 * own provider ids such as "local" are not table ids, so the model alone decides then).
 */
function tablePrice(usage: TokenUsage, provider: string): number | null {
  const tokens = {
    input_tokens: usage.prompt,
    output_tokens: usage.completion,
    ...(usage.cached ? { cache_read_tokens: Math.min(usage.cached, usage.prompt) } : {}),
  };
  const model = usage.model ?? '';
  try {
    const byProvider = provider !== '' ? calcPrice(tokens, model, { providerId: provider }) : null;
    const result = byProvider ?? calcPrice(tokens, model);
    return result ? result.total_price : null;
  } catch {
    // The table refuses usage it cannot price (such as tiers it does not cover): no price.
    return null;
  }
}

/**
 * `usage` with its cost set by `pricer`, when no one priced it yet (`cost` absent) and it names a
 * model or provider to price it by; a bare token pair stays as it is (and counts as unpriced).
 */
export function priced(usage: TokenUsage, pricer: UsagePricer): TokenUsage {
  if (usage.cost !== undefined || (usage.model === undefined && usage.provider === undefined)) return usage;
  return { ...usage, cost: pricer(usage) };
}
