import { addressText, stopReasonSentence, type RunEvent } from '@shared/domain';
import type { RunSummary } from '../../app';
import type { CliIO } from '../command';

/** A CliIO that can also write without a newline, for tokens as they arrive. */
export type StreamingIO = CliIO & { write?: (text: string) => void };

/** The run's last line: its stop reason in the app's words, then the detail the runtime gave. */
function summaryLine(summary: RunSummary): string {
  const sentence = stopReasonSentence(summary.stopReason, { messages: summary.messageCount });
  const detail = summary.detail.trim().replace(/\.$/, '');
  const why = detail && detail !== sentence ? `${sentence} (${detail})` : sentence;
  return (
    `Session ${summary.sessionId} ${summary.status}: ${why}. ` +
    `${summary.messageCount} messages, ${summary.tokens.total} tokens.`
  );
}

interface View {
  show(event: RunEvent): void;
  finish(summary: RunSummary): void;
}

/** `--json`: one event per line, then one summary line. */
export class JsonView implements View {
  constructor(private readonly io: CliIO) {}

  show(event: RunEvent): void {
    this.io.out(JSON.stringify(event));
  }

  finish(summary: RunSummary): void {
    this.io.out(JSON.stringify({ kind: 'summary', ...summary }));
  }
}

const clip = (text: string, length = 160) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** A message whose words are arriving. */
interface OpenStream {
  from: string;
  /** Its words go straight to the terminal (the only message streaming), else by prefixed lines. */
  inline: boolean;
  /** Words of a prefixed stream that do not yet end a line. */
  pending: string;
  streamedAny: boolean;
}

/**
 * The readable terminal view: who speaks to whom, and their words as they stream in. While one
 * message streams, its words are written as they arrive; when several agents stream at once (a
 * parallel fan-out), each agent's words are shown as whole lines prefixed with its name, so
 * concurrent streams never interleave within a line.
 */
export class LiveView implements View {
  /** Text written on the current terminal line by an inline stream. */
  private line = '';
  private readonly open = new Map<string, OpenStream>();

  constructor(private readonly io: StreamingIO) {}

  show(event: RunEvent): void {
    switch (event.kind) {
      case 'session.started':
        this.print(`Running "${event.payload.fleetName}" (session ${event.sessionId})`);
        break;
      case 'message.started': {
        const { from, to, kind, messageId } = event.payload;
        // A second stream while one is inline: the inline one continues as prefixed lines.
        for (const stream of this.open.values()) stream.inline = false;
        const inline = this.open.size === 0;
        this.print('');
        this.print(`${addressText(from, to)}${kind === 'text' ? '' : ` [${kind}]`}`);
        this.open.set(messageId, { from, inline, pending: '', streamedAny: false });
        break;
      }
      case 'message.delta': {
        const stream = this.open.get(event.payload.messageId);
        if (!stream) break;
        stream.streamedAny = true;
        if (stream.inline) this.streamInline(event.payload.text);
        else this.streamPrefixed(stream, event.payload.text);
        break;
      }
      case 'message.completed': {
        const message = event.payload.message;
        const stream = this.open.get(message.id);
        this.open.delete(message.id);
        const prefix = stream && !stream.inline ? `${stream.from} │ ` : '';
        if (stream?.inline) this.endLine();
        else if (stream && stream.pending.length > 0) this.print(prefix + stream.pending);
        if (!stream?.streamedAny && message.content.length > 0 && message.kind !== 'tool') {
          for (const line of message.content.split('\n')) this.print(prefix + line);
        }
        if (message.state === 'partial') this.print(`${prefix}(cut off)`);
        break;
      }
      case 'tool.requested':
        this.print(`  ⚙ ${event.payload.name}(${clip(event.payload.arguments, 120)})`);
        break;
      case 'tool.executed':
        this.print(
          `  ${event.payload.isError ? '✗' : '↳'} ${clip(event.payload.result.replace(/\s+/g, ' '))}`,
        );
        break;
      case 'handoff':
        this.print(`  ⇢ ${event.payload.from} hands off to ${event.payload.to}`);
        break;
      case 'routing.decision':
        this.print(`  ↪ next: ${event.payload.chosen} (${event.payload.reason})`);
        break;
      case 'message.dropped':
        this.print(`  ✗ dropped: ${event.payload.reason}`);
        break;
      case 'error':
        this.print(`  ! ${event.payload.message}`);
        break;
      default:
        break;
    }
  }

  finish(summary: RunSummary): void {
    for (const stream of this.open.values()) {
      if (!stream.inline && stream.pending.length > 0) this.print(`${stream.from} │ ${stream.pending}`);
    }
    this.open.clear();
    this.print('');
    this.print(summaryLine(summary));
  }

  /** A whole line of its own (an inline stream in progress is ended first). */
  private print(text: string): void {
    this.endLine();
    this.io.out(text);
  }

  /** Tokens at once when the terminal allows it, else line by line. */
  private streamInline(text: string): void {
    if (this.io.write) {
      this.io.write(text);
      this.line += text;
      return;
    }
    const parts = (this.line + text).split('\n');
    this.line = parts.pop() ?? '';
    for (const part of parts) this.io.out(part);
  }

  private streamPrefixed(stream: OpenStream, text: string): void {
    const parts = (stream.pending + text).split('\n');
    stream.pending = parts.pop() ?? '';
    for (const part of parts) this.print(`${stream.from} │ ${part}`);
  }

  private endLine(): void {
    if (this.line.length === 0) return;
    if (this.io.write) this.io.write('\n');
    else this.io.out(this.line);
    this.line = '';
  }
}
