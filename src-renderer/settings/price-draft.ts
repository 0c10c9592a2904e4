import { priceOverrideSchema, type PriceOverride } from '@shared/domain';

/** A price override as typed in Settings: every field a string, the cached price optional. */
export interface PriceDraft {
  provider: string;
  model: string;
  inputPerMTok: string;
  outputPerMTok: string;
  cachedInputPerMTok: string;
}

export const emptyPriceDraft = (): PriceDraft => ({
  provider: '',
  model: '',
  inputPerMTok: '',
  outputPerMTok: '',
  cachedInputPerMTok: '',
});

const PRICE_LABELS = {
  inputPerMTok: 'The input price',
  outputPerMTok: 'The output price',
  cachedInputPerMTok: 'The cached input price',
} as const;

/** A dollar amount per million tokens; a blank optional one is undefined. */
function parsePrice(
  key: keyof typeof PRICE_LABELS,
  raw: string,
  optional: boolean,
): number | undefined | string {
  const text = raw.trim();
  if (text === '') return optional ? undefined : `${PRICE_LABELS[key]} is missing: enter 0 for free.`;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0)
    return `${PRICE_LABELS[key]} must be a number of dollars of 0 or more (got "${text}").`;
  if (value > 100_000) return `${PRICE_LABELS[key]} must be at most $100,000 per million tokens.`;
  return value;
}

/** The override a draft describes, or a sentence saying what to correct. */
export function parsePriceDraft(draft: PriceDraft): { override: PriceOverride } | { error: string } {
  const provider = draft.provider.trim();
  const model = draft.model.trim();
  if (provider === '') return { error: 'Name the provider the price is for (e.g. ollama, custom).' };
  if (model === '') return { error: 'Name the model, or * for every model of the provider.' };
  if (provider.length > 200 || model.length > 200)
    return { error: 'A provider or model name is at most 200 characters.' };
  const input = parsePrice('inputPerMTok', draft.inputPerMTok, false);
  const output = parsePrice('outputPerMTok', draft.outputPerMTok, false);
  const cached = parsePrice('cachedInputPerMTok', draft.cachedInputPerMTok, true);
  for (const value of [input, output, cached]) if (typeof value === 'string') return { error: value };
  const parsed = priceOverrideSchema.safeParse({
    provider,
    model,
    inputPerMTok: input,
    outputPerMTok: output,
    ...(cached === undefined ? {} : { cachedInputPerMTok: cached }),
  });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? 'This price is not valid.' };
  return { override: parsed.data };
}

/** The overrides with `override` in place of the one for the same provider and model, or added. */
export function withPriceOverride(list: readonly PriceOverride[], override: PriceOverride): PriceOverride[] {
  const same = (item: PriceOverride) => item.provider === override.provider && item.model === override.model;
  return list.some(same) ? list.map((item) => (same(item) ? override : item)) : [...list, override];
}

/** "$0.15" per million tokens, as the price list shows it. */
export function formatPerMTok(value: number): string {
  return `$${value.toLocaleString('en-US', { maximumFractionDigits: 6 })}`;
}
