import { TransferError } from './transfer-error';

/**
 * ChatDev's log (CAMEL role-playing, `WareHouse/<project>/<project>.log`) is plain text: a
 * sequence of entries, each opening with a stamp `[YYYY-DD-MM HH:MM:SS LEVEL]` (ChatDev's
 * logging format puts the day before the month) and running until the next stamp. Older logs
 * colour some text with ANSI escapes, which are removed.
 */
const STAMP = /^\[(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) (INFO|DEBUG|WARNING|ERROR|CRITICAL)\] ?/;
// eslint-disable-next-line no-control-regex -- ANSI colour escapes are exactly what is removed.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

export interface ChatDevEntry {
  /** Epoch milliseconds (the stamp read as UTC; ChatDev logs local time without a zone). */
  at: number;
  level: string;
  /** The text after the stamp on the first line, then the following lines, trimmed at the end. */
  text: string;
  /** 1-based line of the stamp, for messages. */
  line: number;
}

/** True when the first non-empty line of `head` opens with a ChatDev entry stamp. */
export function looksLikeChatDevLog(head: string): boolean {
  const first = head
    .replace(/^\uFEFF/, '')
    .replace(ANSI, '')
    .split(/\r?\n/)
    .find((line) => line.trim() !== '');
  return first !== undefined && STAMP.test(first);
}

/**
 * The stamp as epoch ms. ChatDev writes `%Y-%d-%m`; when the middle field cannot be a day-first
 * date but can be month-first (a log written with a different format), that reading is used.
 */
function stampTime(match: RegExpExecArray, line: number): number {
  const [year, a, b, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [day, month] = b >= 1 && b <= 12 ? [a, b] : [b, a];
  const at = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(at);
  if (
    month < 1 ||
    month > 12 ||
    check.getUTCDate() !== day ||
    check.getUTCMonth() !== month - 1 ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw new TransferError(
      'invalid-input',
      `Invalid ChatDev log at line ${line}: "${match[0].trim()}" is not a date and time.`,
    );
  }
  return at;
}

/** Splits a ChatDev log into its entries. Text before the first stamp is refused. */
export function readChatDevEntries(text: string): ChatDevEntry[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .replace(ANSI, '')
    .split(/\r?\n/);
  const entries: ChatDevEntry[] = [];
  let current: { at: number; level: string; lines: string[]; line: number } | null = null;
  const close = () => {
    if (current)
      entries.push({
        at: current.at,
        level: current.level,
        text: current.lines.join('\n').trimEnd(),
        line: current.line,
      });
  };
  lines.forEach((line, index) => {
    const match = STAMP.exec(line);
    if (match) {
      close();
      current = {
        at: stampTime(match, index + 1),
        level: match[7] as string,
        lines: [line.slice(match[0].length)],
        line: index + 1,
      };
      return;
    }
    if (current) current.lines.push(line);
    else if (line.trim() !== '') {
      throw new TransferError(
        'invalid-input',
        `Invalid ChatDev log at line ${index + 1}: expected an entry starting with "[YYYY-DD-MM HH:MM:SS INFO]".`,
      );
    }
  });
  close();
  return entries;
}

/** `| **key** | value |` rows of a markdown parameter table, as a record. */
export function parameterTable(text: string): Record<string, string> {
  const table: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const row = /^\|\s*\*\*(.+?)\*\*\s*\|\s*(.*?)\s*\|\s*$/.exec(line);
    if (row) table[row[1] as string] = row[2] as string;
  }
  return table;
}

/** `**key**: value` lines (the preprocessing entry), as a record. */
export function boldFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const field = /^\*\*(.+?)\*\*:\s*(.*)$/.exec(line.trim());
    if (field) fields[field[1] as string] = (field[2] as string).trim();
  }
  return fields;
}
