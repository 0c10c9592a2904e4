import type { ContextGroup, ContextPartKind, SessionContext } from '@shared/contract';
import { formatCount } from '../ui/format';

/** How each kind of part is named in the inspector. */
export const PART_LABELS: Record<ContextPartKind, string> = {
  system: 'System prompt',
  task: 'Task',
  message: 'Messages from others',
  own: 'Its own replies',
  'tool-call': 'Its tool calls',
  'tool-result': 'Tool results',
};

/** One stretch of the window meter: a kind of part, its tokens and its share of the scale. */
export interface MeterSegment {
  kind: ContextPartKind;
  label: string;
  tokens: number;
  /** Percent of the meter's width (0..100). */
  percent: number;
}

export interface ContextFigures {
  segments: MeterSegment[];
  /** The meter's full width in tokens: the window, or what was used when it is larger or unknown. */
  scale: number;
  /** "12.3k of 128k tokens (9.6%)", or "12.3k tokens (window unknown)". */
  usedLabel: string;
  /** Set when the context is larger than the window. */
  overflow: string | null;
  /** What the provider reported beside the parts' sum; null when it reported nothing. */
  reportedLabel: string | null;
  /** Set when some counts are estimates. */
  estimateLabel: string | null;
}

const KIND_ORDER: readonly ContextPartKind[] = [
  'system',
  'task',
  'message',
  'own',
  'tool-call',
  'tool-result',
];

/** A token count as the inspector writes it: estimates carry "≈". */
export function tokensLabel(tokens: number, estimated: boolean): string {
  return `${estimated ? '≈' : ''}${formatCount(tokens)}`;
}

/** Whether a group's tokens are all, some or none counted with a tokenizer. */
export function groupEstimate(group: ContextGroup): 'all' | 'some' | 'none' {
  if (group.estimatedTokens === 0) return 'none';
  return group.estimatedTokens >= group.tokens ? 'all' : 'some';
}

/** The meter and the sentences around it, from one `sessions.context` answer. */
export function contextFigures(context: SessionContext): ContextFigures {
  const used = Math.max(context.countedTokens, context.reportedPromptTokens ?? 0);
  const scale = Math.max(1, context.windowTokens ?? 0, used);
  const byKind = new Map<ContextPartKind, number>();
  for (const group of context.groups) byKind.set(group.kind, (byKind.get(group.kind) ?? 0) + group.tokens);
  const segments = KIND_ORDER.filter((kind) => (byKind.get(kind) ?? 0) > 0).map((kind) => {
    const tokens = byKind.get(kind) ?? 0;
    return { kind, label: PART_LABELS[kind], tokens, percent: (tokens / scale) * 100 };
  });
  const window = context.windowTokens;
  const usedLabel =
    window === null
      ? `${formatCount(used)} tokens (the model's window is not known)`
      : `${formatCount(used)} of ${formatCount(window)} tokens (${percent(used, window)})`;
  const overflow =
    window !== null && used > window
      ? `More than the window by ${formatCount(used - window)} tokens: the provider would have refused or cut it.`
      : null;
  let reportedLabel: string | null = null;
  if (context.reportedPromptTokens !== null) {
    const gap = context.reportedPromptTokens - context.countedTokens;
    reportedLabel =
      `The provider reported ${formatCount(context.reportedPromptTokens)} prompt tokens; the parts add up to ` +
      `${formatCount(context.countedTokens)}` +
      (gap > 0 ? ` (${formatCount(gap)} more went to message framing and tool definitions).` : '.');
  }
  const estimateLabel =
    context.estimatedTokens > 0
      ? `≈ ${formatCount(context.estimatedTokens)} of the parts' tokens are estimates, counted here with a GPT tokenizer (o200k); the rest are the providers' own counts.`
      : null;
  return { segments, scale, usedLabel, overflow, reportedLabel, estimateLabel };
}

function percent(part: number, whole: number): string {
  const value = (part / whole) * 100;
  return `${value < 10 ? value.toFixed(1) : Math.round(value)}%`;
}
