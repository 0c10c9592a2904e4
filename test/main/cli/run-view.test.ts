import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-shared/domain';
import { LiveView } from '../../../src-main/cli/commands/run-view';
import { SessionScript } from '../../helpers/temp-store';
import { captureIo } from '../../helpers/cli-io';

/** The terminal as a person sees it: everything written, split into lines. */
function terminal() {
  let screen = '';
  const io = { ...captureIo(), write: (text: string) => void (screen += text) };
  io.out = (text: string) => void (screen += `${text}\n`);
  return { io, lines: () => screen.split('\n') };
}

describe('the live terminal view', () => {
  it('streams a lone message inline, token by token', () => {
    const { io, lines } = terminal();
    const view = new LiveView(io);
    const s = new SessionScript();
    for (const event of s.message('m1', 'ann', 'bob', ['Hel', 'lo ', 'Bob'])) view.show(event);
    expect(lines()).toContain('ann → bob');
    expect(lines()).toContain('Hello Bob');
  });

  it('shows concurrent streams of a parallel fan-out per agent, never mixed within a line', () => {
    const { io, lines } = terminal();
    const view = new LiveView(io);
    const s = new SessionScript();
    const events: RunEvent[] = [
      s.messageStarted('a', 'alpha', 'editor'),
      s.delta('a', 'alpha one '),
      s.messageStarted('b', 'beta', 'editor'),
      s.delta('b', 'beta one '),
      s.delta('a', 'alpha two\nalpha three '),
      s.delta('b', 'beta two\nbeta three'),
      s.delta('a', 'alpha four'),
      s.completed('a', 'alpha', 'editor', 'alpha one alpha two\nalpha three alpha four'),
      s.completed('b', 'beta', 'editor', 'beta one beta two\nbeta three'),
    ];
    for (const event of events) view.show(event);
    const all = lines();
    for (const line of all) expect(line.includes('alpha') && line.includes('beta')).toBe(false);
    expect(all).toContain('alpha │ alpha three alpha four');
    expect(all).toContain('beta │ beta one beta two');
    expect(all).toContain('beta │ beta three');
    // Every word arrived somewhere.
    for (const word of ['alpha one', 'alpha two', 'beta one', 'beta three', 'alpha four'])
      expect(all.join('\n')).toContain(word);
  });
});
