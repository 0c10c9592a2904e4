import type { RunEvent } from '@shared/domain';
import type { RunSummary } from '../../orchestrator';
import type { CliIO } from '../command';

/** A CliIO that can also write without a newline, for tokens as they arrive. */
export type StreamingIO = CliIO & { write?: (text: string) => void };

function summaryLine(summary: RunSummary): string {
  return (
    `Session ${summary.sessionId} ${summary.status}: ${summary.stopReason} (${summary.detail}) ` +
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

/** The readable terminal view: who speaks to whom, and their words as they stream in. */
export class LiveView implements View {
  private line = '';
  /** Id of the message whose words are being written, and whether any arrived yet. */
  private streaming: string | null = null;
  private streamedAny = false;

  constructor(private readonly io: StreamingIO) {}

  show(event: RunEvent): void {
    switch (event.kind) {
      case 'session.started':
        this.print(`Running "${event.payload.fleetName}" (session ${event.sessionId})`);
        break;
      case 'message.started':
        this.endStream();
        this.print('');
        this.print(
          `${event.payload.from} → ${event.payload.to}${event.payload.kind === 'text' ? '' : ` [${event.payload.kind}]`}`,
        );
        this.streaming = event.payload.messageId;
        this.streamedAny = false;
        break;
      case 'message.delta':
        this.streamedAny = true;
        this.stream(event.payload.text);
        break;
      case 'message.completed': {
        const message = event.payload.message;
        const wasStreamed = this.streaming === message.id && this.streamedAny;
        this.endStream();
        if (!wasStreamed && message.content.length > 0 && message.kind !== 'tool')
          this.print(message.content);
        if (message.state === 'partial') this.print('(cut off)');
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
        this.endStream();
        this.print(`  ! ${event.payload.message}`);
        break;
      default:
        break;
    }
  }

  finish(summary: RunSummary): void {
    this.endStream();
    this.print('');
    this.print(summaryLine(summary));
  }

  private print(text: string): void {
    this.io.out(text);
  }

  /** Writes tokens at once when the terminal allows it, else line by line. */
  private stream(text: string): void {
    if (this.io.write) {
      this.io.write(text);
      this.line += text;
      return;
    }
    const parts = (this.line + text).split('\n');
    this.line = parts.pop() ?? '';
    for (const part of parts) this.io.out(part);
  }

  private endStream(): void {
    if (this.io.write) {
      if (this.line.length > 0) this.io.write('\n');
    } else if (this.line.length > 0) {
      this.io.out(this.line);
    }
    this.line = '';
    this.streaming = null;
  }
}
