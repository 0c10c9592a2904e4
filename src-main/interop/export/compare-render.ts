import type { Compare, ComparePair, CompareSide, DiffSegment, StoredMessage } from '@shared/contract';
import { addressText } from '@shared/domain';
import { CONTENT_SECURITY_POLICY } from './html-template';
import { codeSpan, escapeHtml, escapeHtmlText, escapeInline, formatOffset, quoteBlock } from './text';

/** A comparison to write: its frame and every aligned pair, in order (read lazily). */
export interface CompareRenderInput {
  frame: Omit<Compare, 'pairs' | 'offset' | 'hasMore'>;
  pairs: Iterable<ComparePair>;
}

const sideName = (side: CompareSide) => side.title || side.sessionId;

function stopLine(side: CompareSide): string {
  return `${side.status}${side.stopReason ? ` (${side.stopReason})` : ''}${side.stopDetail ? `: ${side.stopDetail}` : ''}`;
}

function figureRows(frame: CompareRenderInput['frame']): Array<[string, string, string]> {
  const { a, b } = frame;
  return [
    ['Session', a.sessionId, b.sessionId],
    [
      'Fork of',
      a.forkOf ? `${a.forkOf.sessionId} at message ${a.forkOf.atMessage}` : '-',
      b.forkOf ? `${b.forkOf.sessionId} at message ${b.forkOf.atMessage}` : '-',
    ],
    ['Stopped', stopLine(a), stopLine(b)],
    ['Messages', String(a.messages), String(b.messages)],
    ['Tokens', String(a.tokens), String(b.tokens)],
    ['Duration', formatOffset(a.durationMs), formatOffset(b.durationMs)],
    ['Tool calls', String(a.toolCalls), String(b.toolCalls)],
    ['Errors', String(a.errors), String(b.errors)],
  ];
}

function prefixSentence(frame: CompareRenderInput['frame']): string {
  if (frame.divergeAt === null) return `The two transcripts are the same (${frame.commonPrefix} messages).`;
  const shared =
    frame.commonPrefix === 0
      ? 'They differ from the first message'
      : `Messages 1-${frame.commonPrefix} are the same in both`;
  return `${shared}; they diverge at message ${frame.divergeAt}.`;
}

const envelope = (message: StoredMessage) => `${addressText(message.from, message.to)} (${message.kind})`;

/** `~~removed~~` and `**added**` words, each run made safe as inline Markdown. */
function markdownDiff(segments: readonly DiffSegment[]): string {
  return segments
    .map((segment) => {
      const text = escapeInline(segment.text);
      if (segment.side === 'both' || text.trim() === '') return text;
      // Markers hug the words: Markdown ignores `** word**`.
      const [, lead = '', core = '', trail = ''] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text) ?? [];
      return segment.side === 'a' ? `${lead}~~${core}~~${trail}` : `${lead}**${core}**${trail}`;
    })
    .join('');
}

/** A figure's table cell: text escaped, session ids in code spans so they copy as they are. */
function figureCell(label: string, text: string): string {
  if (label === 'Session') return codeSpan(text, true);
  const fork = label === 'Fork of' ? /^(\S+)( at message \d+)$/.exec(text) : null;
  if (fork) return `${codeSpan(fork[1] as string, true)}${fork[2] as string}`;
  return escapeInline(text).replace(/\|/g, '\\|');
}

/**
 * The comparison as Markdown: both sessions' figures and stop reasons side by side, per-agent
 * figures and edge counts (differences marked), the shared prefix once, then each aligned pair
 * from the point of divergence with its word-level changes (`~~A~~ **B**`). Message text is
 * quoted and made safe (see quoteBlock).
 */
export function* renderCompareMarkdown(input: CompareRenderInput): Generator<string> {
  const { frame } = input;
  yield `# Comparison: ${escapeInline(sideName(frame.a))} / ${escapeInline(sideName(frame.b))}\n\n`;
  yield `${prefixSentence(frame)}\n\n`;
  yield '| | A | B |\n|---|---|---|\n';
  for (const [label, a, b] of figureRows(frame))
    yield `| ${label} | ${figureCell(label, a)} | ${figureCell(label, b)} |\n`;
  yield '\n## Agents\n\n| Agent | Messages A / B | Tokens A / B | Time A / B | Tool calls A / B | Errors A / B | |\n|---|---|---|---|---|---|---|\n';
  for (const agent of frame.agents) {
    const pair = (key: 'messages' | 'tokens' | 'toolCalls' | 'errors') => `${agent.a[key]} / ${agent.b[key]}`;
    yield `| ${codeSpan(agent.name, true)} | ${pair('messages')} | ${pair('tokens')} | ${formatOffset(agent.a.timeMs)} / ${formatOffset(agent.b.timeMs)} | ${pair('toolCalls')} | ${pair('errors')} | ${agent.differs ? 'differs' : ''} |\n`;
  }
  yield '\n## Edges\n\n| From | To | Kind | A | B | |\n|---|---|---|---|---|---|\n';
  for (const edge of frame.edges)
    yield `| ${codeSpan(edge.from, true)} | ${codeSpan(edge.to, true)} | ${edge.kind} | ${edge.a} | ${edge.b} | ${edge.differs ? 'differs' : ''} |\n`;
  yield '\n## Transcript\n\n';
  let sharedOpen = false;
  for (const pair of input.pairs) {
    if (pair.position <= frame.commonPrefix && pair.a) {
      if (!sharedOpen) {
        sharedOpen = true;
        yield '### Shared by both\n\n';
      }
      yield `**#${pair.position}** ${codeSpan(envelope(pair.a))}\n\n${quoteBlock(pair.a.content) || '> (empty)'}\n\n`;
      continue;
    }
    if (pair.position === frame.divergeAt) yield `### Diverged at message ${pair.position}\n\n`;
    yield `#### Message ${pair.position}${pair.same ? ' (same)' : ''}\n\n`;
    for (const [label, message] of [
      ['A', pair.a],
      ['B', pair.b],
    ] as const) {
      if (message === null) yield `**${label}:** (no message)\n\n`;
      else
        yield `**${label}:** ${codeSpan(envelope(message))}\n\n${quoteBlock(message.content) || '> (empty)'}\n\n`;
    }
    if (pair.segments && pair.segments.some((segment) => segment.side !== 'both'))
      yield `**Changes:** ${markdownDiff(pair.segments)}\n\n`;
  }
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1d232a; --muted: #66707a; --line: #d9dee3; --bg: #fff; --card: #f6f8fa; --add: #d1f4dc; --del: #fde2e1; --hl: #fff4c2; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --muted: #9aa4ae; --line: #333a41; --bg: #15191d; --card: #1d2227; --add: #143d24; --del: #4a1d1d; --hl: #3d3414; } }
body { margin: 0; padding: 16px 24px; font: 14px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
table { border-collapse: collapse; margin: 8px 0; } td, th { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
tr.differs td { background: var(--hl); }
.pairs { display: grid; grid-template-columns: 3em 1fr 1fr; gap: 6px 12px; }
.pairs .n { color: var(--muted); text-align: right; }
.msg { border: 1px solid var(--line); background: var(--card); border-radius: 8px; padding: 6px 10px; min-width: 0; }
.msg .meta { color: var(--muted); font-size: 12px; }
.msg pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0 0; font: 13px/1.45 ui-monospace, monospace; }
.msg.missing { background: transparent; border-style: dashed; color: var(--muted); }
.diverge { grid-column: 1 / -1; border-top: 2px solid #d92d20; color: #d92d20; font-weight: 600; padding-top: 4px; }
ins { background: var(--add); text-decoration: none; } del { background: var(--del); }
details { margin: 8px 0; } summary { cursor: pointer; color: var(--muted); }
`;

function htmlMessage(
  message: StoredMessage | null,
  segments: readonly DiffSegment[] | null,
  side: 'a' | 'b',
): string {
  if (message === null) return '<div class="msg missing">(no message)</div>';
  const body =
    segments === null
      ? escapeHtmlText(message.content)
      : segments
          .filter((segment) => segment.side === 'both' || segment.side === side)
          .map((segment) => {
            const text = escapeHtmlText(segment.text);
            if (segment.side === 'both') return text;
            return side === 'a' ? `<del>${text}</del>` : `<ins>${text}</ins>`;
          })
          .join('');
  return `<div class="msg"><div class="meta">${escapeHtmlText(envelope(message))} · +${formatOffset(message.t)}</div><pre>${body}</pre></div>`;
}

/**
 * The comparison as one self-contained HTML file (no script, no external resource; the CSP
 * forbids both): figures, agents and edges (differences highlighted), then the transcripts side
 * by side, the shared prefix folded, the point of divergence marked and changed words shown as
 * deletions in A and insertions in B. Every text is escaped.
 */
export function* renderCompareHtml(input: CompareRenderInput): Generator<string> {
  const { frame } = input;
  const title = `Comparison: ${sideName(frame.a)} / ${sideName(frame.b)}`;
  yield `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">`;
  yield `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CONTENT_SECURITY_POLICY.replace(" script-src 'unsafe-inline';", ''))}">`;
  yield `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtmlText(title)}</title><style>${STYLE}</style></head><body>\n`;
  yield `<h1>${escapeHtmlText(title)}</h1><p>${escapeHtmlText(prefixSentence(frame))}</p>\n<table><tr><th></th><th>A</th><th>B</th></tr>`;
  for (const [label, a, b] of figureRows(frame))
    yield `<tr${a !== b && label !== 'Session' ? ' class="differs"' : ''}><th>${label}</th><td>${escapeHtmlText(a)}</td><td>${escapeHtmlText(b)}</td></tr>`;
  yield '</table>\n<h2>Agents</h2><table><tr><th>Agent</th><th>Messages A / B</th><th>Tokens A / B</th><th>Time A / B</th><th>Tool calls A / B</th><th>Errors A / B</th></tr>';
  for (const agent of frame.agents) {
    const pair = (key: 'messages' | 'tokens' | 'toolCalls' | 'errors') => `${agent.a[key]} / ${agent.b[key]}`;
    yield `<tr${agent.differs ? ' class="differs"' : ''}><td>${escapeHtmlText(agent.name)}</td><td>${pair('messages')}</td><td>${pair('tokens')}</td><td>${formatOffset(agent.a.timeMs)} / ${formatOffset(agent.b.timeMs)}</td><td>${pair('toolCalls')}</td><td>${pair('errors')}</td></tr>`;
  }
  yield '</table>\n<h2>Edges</h2><table><tr><th>From</th><th>To</th><th>Kind</th><th>A</th><th>B</th></tr>';
  for (const edge of frame.edges)
    yield `<tr${edge.differs ? ' class="differs"' : ''}><td>${escapeHtmlText(edge.from)}</td><td>${escapeHtmlText(edge.to)}</td><td>${edge.kind}</td><td>${edge.a}</td><td>${edge.b}</td></tr>`;
  yield `</table>\n<h2>Transcripts</h2>\n`;
  let inShared = false;
  let gridOpen = false;
  for (const pair of input.pairs) {
    if (pair.position <= frame.commonPrefix) {
      if (!inShared) {
        inShared = true;
        yield `<details><summary>Messages 1-${frame.commonPrefix}, the same in both</summary><div class="pairs">`;
      }
      yield `<div class="n">${pair.position}</div>${htmlMessage(pair.a, null, 'a')}${htmlMessage(pair.b, null, 'b')}`;
      continue;
    }
    if (inShared) {
      inShared = false;
      yield '</div></details>\n';
    }
    if (!gridOpen) {
      gridOpen = true;
      yield '<div class="pairs">';
    }
    if (pair.position === frame.divergeAt)
      yield `<div class="diverge">Diverged at message ${pair.position}</div>`;
    yield `<div class="n">${pair.position}</div>${htmlMessage(pair.a, pair.segments, 'a')}${htmlMessage(pair.b, pair.segments, 'b')}\n`;
  }
  if (inShared) yield '</div></details>\n';
  if (gridOpen) yield '</div>\n';
  yield '</body></html>\n';
}
