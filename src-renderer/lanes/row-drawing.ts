import {
  BROADCAST,
  USER,
  displayToolName,
  isOwnWork,
  receiversOf,
  type Message,
  type MessageState,
} from '@shared/domain';
import type { LogEntry } from '../session/message-log';
import { formatClock, formatDuration } from '../ui/format';
import { ARROW_INSET, GUTTER, gapHeight } from './lane-geometry';
import type { LaneRowKind } from './lane-rows';
import type { LanesModel } from './lanes-model';

/** One lane: its agent, the x of its line, its colour. */
export interface LaneColumn {
  name: string;
  x: number;
  color: string;
}

/** How a row is drawn. */
export type RowStyle =
  'message' | 'broadcast' | 'handoff' | 'dropped' | 'tool' | 'error' | 'human' | 'routing' | 'note';

/** Everything one drawn row needs, in pixels within the lens. */
export interface RowDrawing {
  index: number;
  top: number;
  height: number;
  /** The y of the arrow within the row. */
  arrowY: number;
  kind: LaneRowKind;
  style: RowStyle;
  messageId: string | null;
  state: MessageState | null;
  from: string | null;
  color: string;
  /** The arrow's line; null for a mark on one lane. */
  line: { x1: number; x2: number } | null;
  /** Arrowheads at the receivers, pointing right (1) or left (-1). */
  heads: { x: number; direction: 1 | -1 }[];
  /** The mark on the sender's lane. */
  dot: number | null;
  label: { x: number; width: number; alignRight: boolean; tag: string; text: string };
  clock: string;
  /** "+12 s" when a noticeable pause came before this row. */
  pause: string | null;
  /** Where a click moves the playhead. */
  seekSeq: number;
}

/** One time label in the gutter: the row's clock at its arrow, and the pause before it. */
export interface GutterMark {
  index: number;
  /** The y of the row's arrow within the lens. */
  y: number;
  top: number;
  clock: string;
  pause: string | null;
}

/** What a row needs from outside the model: the lanes and the message at the playhead. */
export interface DrawContext {
  model: LanesModel;
  columns: ReadonlyMap<string, LaneColumn>;
  laneWidth: number;
  totalWidth: number;
  /** The message as it stands at the playhead (final once completed, else in flight). */
  messageAt(entry: LogEntry): Message;
  /** The playhead. */
  seq: number;
}

/** Longest text a label carries (the rest is in its tooltip and the transcript). */
const LABEL_CHARS = 160;
/** Widest label beside a mark. */
const MARK_LABEL = 360;
/** Colour of marks that belong to no agent (session-level errors). */
const NEUTRAL = 'var(--fg-muted)';

export function drawRow(context: DrawContext, index: number): RowDrawing {
  const { model } = context;
  const rows = model.rows;
  const kind = rows.kinds[index] as LaneRowKind;
  const top = model.offsets.start(index);
  const height = model.offsets.start(index + 1) - top;
  const t = rows.times[index] as number;
  const pauseMs = t - (index > 0 ? (rows.times[index - 1] as number) : 0);
  const base: Omit<
    RowDrawing,
    'style' | 'messageId' | 'state' | 'from' | 'color' | 'line' | 'heads' | 'dot' | 'label'
  > = {
    index,
    top,
    height,
    arrowY: height - ARROW_INSET,
    kind,
    clock: formatClock(t),
    pause: gapHeight(pauseMs) > 0 && pauseMs >= 1000 ? `+${formatDuration(pauseMs)}` : null,
    seekSeq: rows.seqs[index] as number,
  };
  if (kind === 'message') return drawMessage(context, base, rows.refs[index] as number);
  const note = rows.notes[rows.refs[index] as number];
  const column = note?.agent ? context.columns.get(note.agent) : undefined;
  const style: RowStyle =
    kind === 'error'
      ? 'error'
      : kind === 'handoff'
        ? 'handoff'
        : kind === 'routing'
          ? 'routing'
          : kind === 'human-ask' || kind === 'human-answer'
            ? 'human'
            : 'note';
  const tag = NOTE_TAGS[kind as Exclude<LaneRowKind, 'message'>];
  const x = column?.x ?? context.laneWidth / 2;
  const target = note?.target ? context.columns.get(note.target) : undefined;
  const drawing: RowDrawing = {
    ...base,
    style,
    messageId: null,
    state: null,
    from: note?.agent ?? null,
    color: column?.color ?? NEUTRAL,
    line: null,
    heads: [],
    dot: x,
    label: markLabel(context, x, tag, note?.text ?? ''),
  };
  if (kind === 'handoff' && target && target.x !== x) return withArrow(context, drawing, x, [target.x]);
  return drawing;
}

/** "2.3 s, 1st token 420 ms": how long the model call that wrote a message took; '' when not recorded. */
export function callTiming(message: { usage?: { durationMs?: number; firstTokenMs?: number } }): string {
  const { durationMs, firstTokenMs } = message.usage ?? {};
  if (durationMs === undefined) return '';
  return firstTokenMs === undefined
    ? formatDuration(durationMs)
    : `${formatDuration(durationMs)}, 1st token ${formatDuration(firstTokenMs)}`;
}

const NOTE_TAGS: Record<Exclude<LaneRowKind, 'message'>, string> = {
  handoff: 'handoff',
  'human-ask': 'asks a person',
  'human-answer': 'answered',
  error: 'error',
  routing: 'routing',
  continued: 'follow-up',
};

function drawMessage(
  context: DrawContext,
  base: Omit<
    RowDrawing,
    'style' | 'messageId' | 'state' | 'from' | 'color' | 'line' | 'heads' | 'dot' | 'label'
  >,
  logIndex: number,
): RowDrawing {
  const { model, columns } = context;
  const entry = model.log.entries[logIndex] as LogEntry;
  const message = context.messageAt(entry);
  const sender = columns.get(message.from);
  const x = sender?.x ?? context.laneWidth / 2;
  const dropped = entry.droppedReason !== null && entry.endSeq <= context.seq;
  const handoff = message.kind === 'handoff' || model.rows.handoffMessages.has(message.id);
  // Tool calls and results are the sender's own work: a mark on its lane, whoever they address.
  const tool = isOwnWork(message);
  const drawing: RowDrawing = {
    ...base,
    style: dropped
      ? 'dropped'
      : message.kind === 'error'
        ? 'error'
        : handoff
          ? 'handoff'
          : tool
            ? 'tool'
            : 'message',
    messageId: message.id,
    state: message.state,
    from: message.from,
    color: sender?.color ?? NEUTRAL,
    line: null,
    heads: [],
    dot: x,
    label: markLabel(context, x, '', ''),
    seekSeq: Number.isFinite(entry.endSeq) && entry.endSeq <= context.seq ? entry.endSeq : entry.startSeq,
  };
  const said = messageText(message, dropped ? entry.droppedReason : null);
  const timing = callTiming(message);
  const tag = [timing, said.tag].filter(Boolean).join(' · ');
  const text = said.text;
  if (dropped) {
    const reach = Math.min(context.laneWidth * 0.6, context.totalWidth - x - 8);
    return {
      ...withArrow(context, drawing, x, [x + reach]),
      label: lineLabel(x, x + reach, context, tag, text),
    };
  }
  if (message.to === BROADCAST) {
    const receivers = [...columns.values()]
      .filter((column) => column.name !== message.from && column.name !== USER)
      .map((column) => column.x);
    if (receivers.length > 0)
      return {
        ...withArrow(context, drawing, x, receivers),
        style: 'broadcast',
        label: markLabel(
          context,
          x,
          said.tag ? tag : [timing, 'to everyone'].filter(Boolean).join(' · '),
          text,
        ),
      };
  } else if (message.to !== message.from && (!tool || handoff)) {
    const receivers = receiversOf(message);
    const drawn = receivers.flatMap((name) => {
      const column = columns.get(name);
      return column ? [column.x] : [];
    });
    const first = columns.get(message.to);
    const to = first?.x ?? Math.min(x + context.laneWidth * 0.6, context.totalWidth - 8);
    const shown = first ? tag : `${tag ? `${tag} ` : ''}to ${message.to}`;
    const heads = drawn.length > 0 && first ? drawn : [to];
    return { ...withArrow(context, drawing, x, heads), label: lineLabel(x, to, context, shown, text) };
  }
  return { ...drawing, label: markLabel(context, x, tag, text) };
}

/** The drawing with a line from `x` through every receiver and a head at each. */
function withArrow(context: DrawContext, drawing: RowDrawing, x: number, receivers: number[]): RowDrawing {
  const all = [x, ...receivers];
  return {
    ...drawing,
    line: { x1: Math.min(...all), x2: Math.max(...all) },
    heads: receivers.filter((to) => to !== x).map((to) => ({ x: to, direction: to > x ? 1 : -1 })),
    label: drawing.label,
  };
}

/** A label along a line from `x1` to `x2`, or beside the sender when the span is too narrow. */
function lineLabel(
  x1: number,
  x2: number,
  context: DrawContext,
  tag: string,
  text: string,
): RowDrawing['label'] {
  const left = Math.min(x1, x2);
  const width = Math.abs(x2 - x1) - 16;
  if (width >= 96) return { x: left + 8, width, alignRight: false, tag, text };
  return markLabel(context, x1, tag, text);
}

/** A label beside a mark at `x`: to its right when there is room, else to its left. */
function markLabel(context: DrawContext, x: number, tag: string, text: string): RowDrawing['label'] {
  const right = context.totalWidth - x - 18;
  if (right >= 160 || right >= x - GUTTER - 14)
    return { x: x + 10, width: Math.min(MARK_LABEL, right), alignRight: false, tag, text };
  const width = Math.max(0, Math.min(MARK_LABEL, x - GUTTER - 14));
  return { x: x - 10 - width, width, alignRight: true, tag, text };
}

/** The kind tag and the one-line text a message row shows. */
export function messageText(message: Message, droppedReason: string | null): { tag: string; text: string } {
  if (droppedReason !== null) return { tag: 'not delivered', text: `to ${message.to}: ${droppedReason}` };
  const calls = message.toolCalls ?? [];
  if (calls.length > 0)
    return {
      tag: calls.length === 1 ? 'tool call' : `${calls.length} tool calls`,
      text: calls.map((call) => `⚙ ${displayToolName(call.name)}(${oneLine(call.arguments)})`).join('  '),
    };
  const results = message.toolResults ?? [];
  if (results.length > 0)
    return {
      tag: results.some((result) => result.isError) ? 'tool failed' : 'tool result',
      text: results
        .map(
          (result) =>
            `${result.isError ? '⚠' : '↩'} ${displayToolName(result.name)}: ${oneLine(result.content)}`,
        )
        .join('  '),
    };
  const tag = message.kind === 'text' ? '' : message.kind;
  if (message.state === 'streaming') {
    const tail = oneLine(message.content.slice(-LABEL_CHARS));
    return { tag, text: tail ? `…${tail}` : '…' };
  }
  return { tag, text: oneLine(message.content) };
}

/** The first non-empty line of `text`, whitespace collapsed, cut to a label's length. */
function oneLine(text: string): string {
  const line =
    text
      .slice(0, LABEL_CHARS * 4)
      .split('\n')
      .find((candidate) => candidate.trim() !== '') ?? '';
  const collapsed = line.replace(/\s+/g, ' ').trim();
  return collapsed.length > LABEL_CHARS ? `${collapsed.slice(0, LABEL_CHARS - 1)}…` : collapsed;
}
