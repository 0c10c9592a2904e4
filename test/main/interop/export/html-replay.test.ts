import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { Window } from 'happy-dom';
import { exportToStream } from '../../../../src-main/interop/export';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { sampleEvents } from './sample-session';

async function htmlOf(store: MemorySessions, id: string): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  await exportToStream(store, id, 'html', sink);
  return chunks.join('');
}

describe('the HTML replay page', () => {
  it('lists the agents, shows every item, and the slider and play button step through them', async () => {
    const store = new MemorySessions();
    const id = store.addSession({}, [
      ...sampleEvents(12, (i) => (i === 2 ? '<img src=x onerror="window.pwned=1">' : `m${i}`)),
    ]);
    const window = new Window({
      settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true },
    });
    const document = window.document;
    document.write(await htmlOf(store, id));
    await window.happyDOM.waitUntilComplete();

    const agents = [...document.querySelectorAll('#agents li')].map((li) => li.firstChild?.textContent);
    expect(agents).toEqual(['planner', 'coder', 'reviewer']);
    const items = document.querySelectorAll('#items li');
    const slider = document.querySelector('#position') as unknown as {
      value: string;
      max: string;
      dispatchEvent(e: unknown): void;
    };
    expect(items.length).toBe(Number(slider.max));
    expect(document.querySelector('#items img')).toBeNull();
    expect(document.body.textContent).toContain('<img src=x onerror="window.pwned=1">');

    slider.value = '3';
    slider.dispatchEvent(new window.Event('input'));
    expect(document.querySelectorAll('#items li').length).toBe(3);
    expect(document.querySelector('#counter')?.textContent).toBe(`3 / ${slider.max}`);

    const play = document.querySelector('#play') as unknown as { click(): void; textContent: string };
    play.click();
    expect(play.textContent).toBe('Pause');
    play.click();
    expect(play.textContent).toBe('Play');
    await window.happyDOM.close();
  });
});
