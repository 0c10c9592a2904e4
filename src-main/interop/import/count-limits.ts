import type { ImportedEvent } from '../../history/ports';
import type { ImportLimits } from './limits';
import { TransferError } from './transfer-error';

/** Counts one session's events and messages as they are read; past a limit it throws `too-large`. */
export class SessionCounts {
  events = 0;
  messages = 0;

  constructor(private readonly limits: Pick<ImportLimits, 'maxEvents' | 'maxMessages'>) {}

  add(event: ImportedEvent): void {
    if (++this.events > this.limits.maxEvents) {
      throw new TransferError(
        'too-large',
        `The file holds more than ${this.limits.maxEvents.toLocaleString('en-US')} events, the most one session may import.`,
      );
    }
    if (event.kind === 'message.completed' && ++this.messages > this.limits.maxMessages) {
      throw new TransferError(
        'too-large',
        `The file holds more than ${this.limits.maxMessages.toLocaleString('en-US')} messages, the most one session may import.`,
      );
    }
  }
}
