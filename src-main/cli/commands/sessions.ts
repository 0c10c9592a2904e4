import { parseArgs } from 'node:util';
import { SESSION_SORTS, type SessionSort } from '@shared/contract';
import { formatCost, stopReasonSentence } from '@shared/domain';
import type { SessionListItem } from '../../app';
import { EXIT, UsageError, type CliCommand } from '../command';
import { dataDirFrom, hasStore, withApp } from '../open-app';

const SESSION_SORTS_TEXT = SESSION_SORTS.join('|');
const isSessionSort = (value: string): value is SessionSort =>
  (SESSION_SORTS as readonly string[]).includes(value);

/** "850ms", "42s", "3m 05s", "2h 14m". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** Local time as "YYYY-MM-DD HH:MM". */
export function formatWhen(epochMs: number): string {
  const d = new Date(epochMs);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** One line of a table cell: control characters and line breaks flattened, cut with an ellipsis. */
export function cell(text: string, width: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  const chars = [...flat];
  return chars.length <= width ? flat : `${chars.slice(0, width - 1).join('')}…`;
}

const COLUMNS: Array<{
  title: string;
  width: number;
  value(item: SessionListItem): string;
  right?: boolean;
}> = [
  { title: 'ID', width: 8, value: (s) => s.id.slice(0, 8) },
  // A fork's title is marked; `show` names its parent and fork point.
  { title: 'TITLE', width: 30, value: (s) => (s.forkOf ? `↳ ${s.title}` : s.title) },
  { title: 'FLEET', width: 18, value: (s) => s.fleetName },
  { title: 'STATUS', width: 17, value: (s) => s.status },
  { title: 'STOP REASON', width: 40, value: (s) => (s.stopReason ? stopReasonSentence(s.stopReason) : '') },
  { title: 'MSGS', width: 6, value: (s) => String(s.messageCount), right: true },
  { title: 'TOKENS', width: 8, value: (s) => String(s.tokens), right: true },
  {
    title: 'COST',
    width: 34,
    value: (s) => formatCost({ cost: s.cost ?? 0, unpricedCalls: s.unpricedCalls ?? 0 }),
    right: true,
  },
  { title: 'DURATION', width: 8, value: (s) => formatDuration(s.durationMs), right: true },
  { title: 'WHEN', width: 16, value: (s) => formatWhen(s.createdAt) },
];

export function sessionTable(items: SessionListItem[]): string[] {
  const widths = COLUMNS.map((column) =>
    Math.min(
      column.width,
      Math.max(
        column.title.length,
        ...items.map((item) => [...cell(column.value(item), column.width)].length),
      ),
    ),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => {
        const width = widths[i] as number;
        const pad = ' '.repeat(Math.max(0, width - [...value].length));
        return COLUMNS[i]?.right ? pad + value : value + pad;
      })
      .join('  ')
      .trimEnd();
  return [
    line(COLUMNS.map((column) => column.title)),
    ...items.map((item) => line(COLUMNS.map((column, i) => cell(column.value(item), widths[i] as number)))),
  ];
}

export const sessionsCommand: CliCommand = {
  name: 'sessions',
  summary: 'List recorded sessions, newest first',
  usage: `fleetscope sessions [--json] [--search TEXT] [--sort ${SESSION_SORTS_TEXT}] [--limit N] [--data-dir DIR]`,
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        json: { type: 'boolean', default: false },
        search: { type: 'string' },
        sort: { type: 'string' },
        limit: { type: 'string' },
        'data-dir': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    });
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
      throw new UsageError(`--limit must be a whole number from 1 to 500, got "${values.limit}"`);
    }
    const sort = values.sort;
    if (sort !== undefined && !isSessionSort(sort)) {
      throw new UsageError(`--sort must be one of ${SESSION_SORTS_TEXT}, got "${sort}"`);
    }
    const dataDir = dataDirFrom(values['data-dir'], io);
    if (!hasStore(dataDir)) {
      io.out(
        values.json ? JSON.stringify({ total: 0, items: [] }) : `No sessions yet (no store in ${dataDir}).`,
      );
      return EXIT.ok;
    }
    return withApp(dataDir, io, async (app) => {
      const page = await app.call('sessions.list', {
        limit,
        ...(values.search !== undefined ? { search: values.search } : {}),
        ...(sort !== undefined ? { sort } : {}),
      });
      if (values.json) {
        io.out(JSON.stringify(page, null, 2));
      } else if (page.items.length === 0) {
        io.out(values.search ? `No sessions match "${values.search}".` : 'No sessions yet.');
      } else {
        for (const row of sessionTable(page.items)) io.out(row);
        io.out(`\nShowing ${page.items.length} of ${page.total} session${page.total === 1 ? '' : 's'}.`);
      }
      return EXIT.ok;
    });
  },
};
