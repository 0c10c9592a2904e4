import {
  assertNever,
  describeUsage,
  formatCost,
  receiverLabel,
  stopReasonSentence,
  type Message,
  type RunEvent,
  type SessionSummary,
} from '@shared/domain';
import type { RenderInput } from './render-types';
import {
  codeBlock,
  codeSpan,
  escapeHtmlText,
  escapeInline,
  formatOffset,
  prettyJson,
  quoteBlock,
} from './text';

/**
 * A readable transcript: a header table, the task, the agents, then every message in order with
 * its thread (numbered, with who started it), sender -> receiver, tool calls and results in collapsed <details>, handoffs, errors,
 * and the stop reason. Message text is quoted and made safe (see `quoteBlock`): it cannot break
 * the document's structure, its links stay on the web, and it reads as written (quotes stay
 * quotes). The file ends with one newline.
 */
export function* renderMarkdown(input: RenderInput): Generator<string> {
  const { summary, fleet } = input;
  yield `# ${escapeInline(summary.title || 'Untitled session')}\n\n`;
  yield headerTable(summary);
  yield `## Task\n\n${quoteBlock(summary.task) || '> (none)'}\n\n`;
  if (fleet && fleet.agents.length > 0) {
    yield '## Agents\n\n';
    for (const agent of fleet.agents) {
      const model = agent.provider ? `, ${escapeInline(`${agent.provider.id}/${agent.provider.model}`)}` : '';
      const about = agent.description ? ` - ${escapeInline(agent.description)}` : '';
      yield `- **${escapeInline(agent.name)}** (${agent.type ?? 'llm'}${model})${about}\n`;
    }
    yield '\n';
  }
  yield '## Transcript\n\n';
  const shownResults = new Set<string>();
  const threads = new ThreadLabels();
  /** Message numbers by id, so a reply names the number of the message it answers. */
  const numbers = new Map<string, number>();
  let count = 0;
  for (const event of input.events) {
    if (event.kind === 'message.completed') {
      const message = event.payload.message;
      const heading = threads.enter(message);
      if (heading) yield heading;
      numbers.set(message.id, ++count);
      yield renderMessage(message, count, shownResults, numbers);
    } else {
      const line = renderEvent(event, shownResults);
      if (line) yield line;
    }
  }
  yield `## Outcome\n\n**Status:** ${summary.status}  \n**Stop reason:** ${escapeInline(stopSentence(summary))}\n`;
}

function stopSentence(summary: SessionSummary): string {
  return summary.stopReason
    ? stopReasonSentence(summary.stopReason, { messages: summary.messageCount })
    : 'not recorded';
}

function headerTable(summary: SessionSummary): string {
  const rows: Array<[string, string]> = [
    ['Fleet', escapeInline(summary.fleetName)],
    ['Status', summary.status],
    ['Stop reason', escapeInline(stopSentence(summary))],
    ['Started', new Date(summary.createdAt).toISOString()],
    ['Messages', String(summary.messageCount)],
    ['Tokens', String(summary.tokens)],
    ['Cost', formatCost({ cost: summary.cost ?? 0, unpricedCalls: summary.unpricedCalls ?? 0 })],
    ['Source', escapeInline(summary.source)],
    ['Session id', codeSpan(summary.id, true)],
  ];
  if (summary.parentSessionId)
    rows.push(['Forked from', `${codeSpan(summary.parentSessionId, true)} at event ${summary.forkSeq}`]);
  if (summary.tags.length) rows.push(['Tags', summary.tags.map(escapeInline).join(', ')]);
  return `| | |\n|---|---|\n${rows.map(([key, value]) => `| ${key} | ${value} |`).join('\n')}\n\n`;
}

/**
 * Threads by short labels instead of their ids: "Thread 2, started by critic" where a thread
 * first appears, "Thread 1, continued" when the transcript returns to it.
 */
class ThreadLabels {
  private readonly numbers = new Map<string, number>();
  private current: string | null = null;

  /** The heading to write before `message`, or null when it continues the current thread. */
  enter(message: Message): string | null {
    if (message.threadId === this.current) return null;
    this.current = message.threadId;
    const known = this.numbers.get(message.threadId);
    if (known !== undefined) return `### Thread ${known}, continued\n\n`;
    const number = this.numbers.size + 1;
    this.numbers.set(message.threadId, number);
    return `### Thread ${number}, started by ${escapeInline(message.from)}\n\n`;
  }
}

function renderMessage(
  message: Message,
  index: number,
  shownResults: Set<string>,
  numbers: ReadonlyMap<string, number>,
): string {
  const parts: string[] = [];
  const answered = message.parentId ? numbers.get(message.parentId) : undefined;
  const reply = answered !== undefined && answered !== index - 1 ? ` · reply to ${answered}` : '';
  const state = message.state === 'complete' ? '' : ` · ${message.state}`;
  const usage = message.usage ? ` · ${escapeInline(describeUsage(message.usage))}` : '';
  parts.push(
    `**${index}. ${escapeInline(message.from)} → ${escapeInline(receiverLabel(message.to))}** · ${message.kind} · ${formatOffset(message.t)}${reply}${state}${usage}\n`,
  );
  if (message.content !== '') parts.push(`\n${quoteBlock(message.content)}\n`);
  for (const call of message.toolCalls ?? []) {
    parts.push(
      details(
        `Tool call <code>${escapeHtmlText(call.name)}</code> · ${escapeHtmlText(call.id)}`,
        codeBlock(prettyJson(call.arguments), 'json'),
      ),
    );
  }
  for (const result of message.toolResults ?? []) {
    if (shownResults.has(result.callId)) continue;
    shownResults.add(result.callId);
    parts.push(toolResult(result.name, result.callId, result.content, result.isError));
  }
  parts.push('\n');
  return parts.join('');
}

function details(summary: string, body: string): string {
  return `\n<details><summary>${summary}</summary>\n\n${body}\n\n</details>\n`;
}

function toolResult(name: string, callId: string, content: string, isError: boolean): string {
  const label = isError ? 'Tool error' : 'Tool result';
  return details(
    `${label} <code>${escapeHtmlText(name)}</code> · ${escapeHtmlText(callId)}`,
    codeBlock(content),
  );
}

/** Non-message events worth reading; deltas, statuses and checks are left out. */
function renderEvent(event: RunEvent, shownResults: Set<string>): string | null {
  const at = formatOffset(event.t);
  switch (event.kind) {
    case 'tool.executed': {
      if (shownResults.has(event.payload.callId)) return null;
      shownResults.add(event.payload.callId);
      const { name, callId, result, isError } = event.payload;
      return `${toolResult(name, callId, result, isError).trimStart()}\n`;
    }
    case 'handoff':
      return `**↪ Handoff** ${escapeInline(event.payload.from)} → ${escapeInline(event.payload.to)} · ${at}\n\n`;
    case 'error':
      return `> **Error** ${codeSpan(event.payload.code)} · ${at}: ${escapeInline(event.payload.message)}\n\n`;
    case 'message.dropped':
      return `> **Dropped** a message from ${escapeInline(event.payload.message.from)} to ${escapeInline(receiverLabel(event.payload.message.to))}: ${escapeInline(event.payload.reason)}\n\n`;
    case 'human.requested':
      return `**Asked the human** · ${at}\n\n${quoteBlock(event.payload.prompt)}\n\n`;
    case 'human.given':
      return `**The human answered** · ${at}\n\n${quoteBlock(event.payload.text)}\n\n`;
    case 'session.continued':
      return `---\n\n**Continued with a new task** · ${at}\n\n${quoteBlock(event.payload.task)}\n\n`;
    case 'session.stopped':
      return `**■ ${escapeInline(stopReasonSentence(event.payload.stopReason))}** (${event.payload.status}) · ${at}${event.payload.detail ? `: ${escapeInline(event.payload.detail)}` : ''}\n\n`;
    case 'session.started':
    case 'session.status':
    case 'agent.status':
    case 'message.started':
    case 'message.delta':
    case 'message.completed':
    case 'tool.requested':
    case 'routing.decision':
    case 'termination.check':
    case 'usage':
    case 'span.unmapped':
    case 'model.call':
      return null;
    default:
      return assertNever(event);
  }
}
