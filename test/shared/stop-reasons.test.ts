import { describe, expect, it } from 'vitest';
import { STOP_CODES, stopReasonSentence } from '@shared/domain';

describe('stop reasons in plain words', () => {
  it('turns the message limit into "Stopped after N messages"', () => {
    expect(stopReasonSentence('max-messages', { messages: 20 })).toBe('Stopped after 20 messages');
    expect(stopReasonSentence('max-messages', { messages: 1 })).toBe('Stopped after 1 message');
    expect(stopReasonSentence('max-messages')).toBe('Stopped at its message limit');
  });

  it('has a sentence for every code the runtime produces, none of them the bare code', () => {
    for (const code of STOP_CODES) {
      const sentence = stopReasonSentence(code, { messages: 4 });
      expect(sentence, code).not.toBe(code);
      if (code.includes('-')) expect(sentence, code).not.toContain(code);
      expect(sentence, code).toMatch(/^[A-Z][a-z]+[ :]/);
    }
    expect(stopReasonSentence('team-finished')).toBe('Finished: every agent had its turn');
    expect(stopReasonSentence('cancelled')).toBe('Cancelled before the end');
    expect(stopReasonSentence('error')).toBe('Ended by an error');
    expect(stopReasonSentence('external')).toBe('Stopped on request');
  });

  it('names every part of a composite condition that fired', () => {
    expect(stopReasonSentence('max-messages and text-mention', { messages: 12 })).toBe(
      'Stopped after 12 messages and when an agent said the agreed closing words',
    );
    expect(stopReasonSentence('timeout and timeout')).toBe('Stopped at its time limit');
  });

  it('shows sentences recorded by imports and recovery as they are', () => {
    const recorded = 'The process running this session ended before the session did.';
    expect(stopReasonSentence(recorded)).toBe(recorded);
    expect(stopReasonSentence('max-messages and something else')).toBe('max-messages and something else');
  });
});
