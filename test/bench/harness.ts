import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

/**
 * What every bench shares: repetitions run interleaved (each variant in each position of the
 * order), a figure's spread over them, its baseline measured in the same run, its goal beside it,
 * a printed table and the JSON it is written as (test-artifacts/bench/<bench>.json, and merged
 * into test-artifacts/bench/results.json, which `npm run bench` prints as one goal table at the
 * end). Benches print figures; they never assert on time.
 *
 * Environment: FLEETSCOPE_BENCH_REPS (default 3) sets the repetitions of every bench; sizes read
 * with `benchSize` have their own variables (e.g. FLEETSCOPE_BENCH_MESSAGES=1000000).
 */
export const ARTIFACT_DIR = join(process.cwd(), 'test-artifacts', 'bench');
export const RESULTS_FILE = join(ARTIFACT_DIR, 'results.json');

/** Repetitions per figure: FLEETSCOPE_BENCH_REPS or `fallback` (3, the least a figure is published with). */
export function benchReps(fallback = 3): number {
  const raw = Number(process.env.FLEETSCOPE_BENCH_REPS);
  return Number.isInteger(raw) && raw > 0 ? raw : fallback;
}

/** A size a bench runs at: the environment variable `name` when it holds a positive integer. */
export function benchSize(name: string, fallback: number): number {
  const raw = Number(process.env[name]);
  return Number.isInteger(raw) && raw > 0 ? raw : fallback;
}

export interface Stats {
  n: number;
  median: number;
  min: number;
  max: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value below which a fraction `p` (0..1) of the values lie (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

/** Runs `work` `times` times and returns the p95 of its milliseconds. */
export async function p95Of(times: number, work: (index: number) => Promise<unknown>): Promise<number> {
  const took: number[] = [];
  for (let index = 0; index < times; index += 1) {
    const started = performance.now();
    await work(index);
    took.push(performance.now() - started);
  }
  return percentile(took, 0.95);
}

/** Median, min and max of the finite values; `n` counts them all. */
export function stats(values: readonly number[]): Stats {
  const finite = values.filter((value) => Number.isFinite(value));
  return {
    n: values.length,
    median: median(finite),
    min: finite.length ? Math.min(...finite) : NaN,
    max: finite.length ? Math.max(...finite) : NaN,
  };
}

/**
 * Runs every step `reps` times, interleaved: repetition r starts at step r (mod the number of
 * steps), so each variant runs in each position and a machine that slows down or warms up over
 * the run weighs on all of them alike. A step returns its measurement. Steps are awaited one at a
 * time. Returns each step's measurements in repetition order.
 */
export async function interleave<K extends string>(
  reps: number,
  steps: Record<K, () => number | Promise<number>>,
): Promise<Record<K, number[]>> {
  const names = Object.keys(steps) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let rep = 0; rep < reps; rep += 1) {
    for (let offset = 0; offset < names.length; offset += 1) {
      const name = names[(rep + offset) % names.length]!;
      results[name].push(await steps[name]());
    }
  }
  return results;
}

/**
 * A goal from the issue. `ratio`: the figure's per-repetition ratio to its baseline, median at
 * most `max`. `value`: the figure's median at most `max` (in the figure's unit), or its worst
 * repetition with `judge: 'max'` (for goals like "no task over 50 ms"); `at-least`: the median at
 * least `min`. `info`: no number to meet (context, or a contrast).
 */
export type Goal =
  | { kind: 'ratio'; max: number; text: string }
  | { kind: 'value'; max: number; text: string; judge?: 'median' | 'max' }
  | { kind: 'at-least'; min: number; text: string }
  | { kind: 'info'; text: string };

export interface Figure {
  /** Stable key in the JSON. */
  id: string;
  /** What was measured, with its size. */
  label: string;
  unit: string;
  /** One measurement per repetition. */
  values: number[];
  /** The same work done the plain way in the same run, one measurement per repetition (same order). */
  baseline?: { label: string; values: number[] };
  goal?: Goal;
  /** How it was measured, a smaller size than the goal's, what to run for the full size. */
  note?: string;
}

interface FigureRecord extends Figure {
  stats: Stats;
  baselineStats?: Stats;
  ratio?: { values: number[]; stats: Stats };
  met?: boolean;
}

export interface BenchRecord {
  bench: string;
  title: string;
  at: string;
  machine: { node: string; cpus: number; loadAverage: number[] };
  context: Record<string, unknown>;
  figures: FigureRecord[];
}

function record(figure: Figure): FigureRecord {
  const out: FigureRecord = { ...figure, stats: stats(figure.values) };
  if (figure.baseline) {
    out.baselineStats = stats(figure.baseline.values);
    // A baseline of 0 (no long task at all, say) has no ratio.
    const ratios = figure.values.map((value, index) => {
      const base = figure.baseline!.values[index]!;
      return base > 0 ? value / base : NaN;
    });
    out.ratio = { values: ratios, stats: stats(ratios) };
  }
  const goal = figure.goal;
  if (goal?.kind === 'ratio' && out.ratio) out.met = out.ratio.stats.median <= goal.max;
  if (goal?.kind === 'value') out.met = (goal.judge === 'max' ? out.stats.max : out.stats.median) <= goal.max;
  if (goal?.kind === 'at-least') out.met = out.stats.median >= goal.min;
  return out;
}

/** A number at a precision that suits its size. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return '—';
  const size = Math.abs(value);
  return value.toFixed(size >= 100 ? 0 : size >= 10 ? 1 : size >= 1 ? 2 : 3);
}

function spreadText(s: Stats, unit: string): string {
  return s.n > 1
    ? `${fmt(s.median)} ${unit} (${fmt(s.min)}–${fmt(s.max)}, n=${s.n})`
    : `${fmt(s.median)} ${unit}`;
}

/** The goal table of one bench's figures, as printed. */
export function formatTable(title: string, figures: readonly FigureRecord[]): string {
  const rows = figures.map((figure) => [
    figure.label,
    spreadText(figure.stats, figure.unit),
    figure.baseline && figure.baselineStats
      ? `${figure.baseline.label}: ${spreadText(figure.baselineStats, figure.unit)}`
      : '',
    figure.ratio
      ? `${fmt(figure.ratio.stats.median)}x (${fmt(figure.ratio.stats.min)}–${fmt(figure.ratio.stats.max)})`
      : '',
    figure.goal ? figure.goal.text : '',
    figure.met === undefined ? '' : figure.met ? 'met' : 'NOT MET',
  ]);
  const header = ['figure', 'median (min–max, n)', 'baseline, same run', 'ratio', 'goal', ''];
  const widths = header.map((name, column) =>
    Math.max(name.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const notes = figures
    .filter((figure) => figure.note)
    .map((figure) => `  - ${figure.label}: ${figure.note}`);
  return [
    `\n${title}`,
    line(header),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map(line),
    ...(notes.length ? ['  notes:', ...notes] : []),
  ].join('\n');
}

/** Collects one bench's figures; `finish` prints them and writes the JSON. */
export class BenchReport {
  private readonly figures: FigureRecord[] = [];

  constructor(
    readonly bench: string,
    readonly title: string,
    readonly context: Record<string, unknown> = {},
  ) {}

  add(figure: Figure): FigureRecord {
    const added = record(figure);
    this.figures.push(added);
    return added;
  }

  /** Prints the table and writes test-artifacts/bench/<bench>.json and its entry in results.json. */
  finish(): BenchRecord {
    const result: BenchRecord = {
      bench: this.bench,
      title: this.title,
      at: new Date().toISOString(),
      machine: { node: process.version, cpus: cpus().length, loadAverage: loadavg() },
      context: this.context,
      figures: this.figures,
    };
    console.log(formatTable(this.title, this.figures));
    mkdirSync(ARTIFACT_DIR, { recursive: true });
    writeFileSync(join(ARTIFACT_DIR, `${this.bench}.json`), `${JSON.stringify(result, null, 2)}\n`);
    const all = readResults();
    all[this.bench] = result;
    writeFileSync(RESULTS_FILE, `${JSON.stringify(all, null, 2)}\n`);
    return result;
  }
}

export function readResults(): Record<string, BenchRecord> {
  if (!existsSync(RESULTS_FILE)) return {};
  try {
    return JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Record<string, BenchRecord>;
  } catch {
    return {};
  }
}
