import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Window } from 'happy-dom';
import { agentColor, type RunEvent } from '@shared/domain';
import { exportToStream } from '../../../../src-main/interop/export';
import { SessionGraphTally } from '../../../../src-main/interop/export/html-graph';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { SAMPLE_FLEET, sampleEvents } from './sample-session';

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

async function open(html: string) {
  const window = new Window({
    settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true },
  });
  window.document.write(html);
  await window.happyDOM.waitUntilComplete();
  return window;
}

describe('the session graph in the HTML export', () => {
  it('draws every agent once, in its app colour, and one weighted arrow per pair that talked', () => {
    const graph = new SessionGraphTally(SAMPLE_FLEET);
    for (let index = 0; index < 5; index++) graph.add({ from: 'planner', to: 'coder' });
    graph.add({ from: 'coder', to: 'planner' });
    graph.add({ from: 'user', to: 'planner' });
    graph.add({ from: 'reviewer', to: '*' });
    graph.add({ from: 'reviewer', to: '*' });
    graph.add({ from: 'stranger', to: 'reviewer' });
    const svg = graph.svg();
    const window = new Window();
    window.document.body.innerHTML = svg;
    const nodes = [...window.document.querySelectorAll('.node')].map((node) =>
      node.getAttribute('data-agent'),
    );
    expect(nodes).toEqual(['planner', 'coder', 'reviewer', 'stranger']);
    expect(svg).toContain(`--agent:${agentColor('coder', 1)}`);
    const edges = [...window.document.querySelectorAll('.edge')].map(
      (edge) =>
        `${edge.getAttribute('data-from')}>${edge.getAttribute('data-to')}: ${edge.querySelector('title')?.textContent}`,
    );
    expect(edges).toEqual([
      'planner>coder: planner → coder: 5 messages',
      'coder>planner: coder → planner: 1 message',
      'stranger>reviewer: stranger → reviewer: 1 message',
    ]);
    const width = (from: string) =>
      Number(window.document.querySelector(`.edge[data-from="${from}"] path`)?.getAttribute('stroke-width'));
    expect(width('planner')).toBeGreaterThan(width('coder'));
    // Broadcasts are a count on the speaker, not a box of their own; the user has no box either.
    expect(window.document.querySelector('[data-agent="reviewer"] .badge')?.textContent).toBe(
      '2 to everyone',
    );
    expect(window.document.querySelector('[data-agent="user"], [data-agent="*"]')).toBeNull();
    // A broadcast is drawn as an arrow to everyone else (faint until one replays).
    expect(window.document.querySelectorAll('.fan[data-from="reviewer"] polygon')).toHaveLength(3);
  });

  it('keeps names inert in the SVG', () => {
    const graph = new SessionGraphTally(null);
    graph.add({ from: '"><script>alert(1)</script>', to: 'b' });
    const svg = graph.svg();
    expect(svg).not.toContain('<script');
    const window = new Window();
    window.document.body.innerHTML = svg;
    expect(window.document.querySelector('.node')?.getAttribute('data-agent')).toBe(
      '"><script>alert(1)</script>',
    );
  });

  it('highlights the speaker and the path of the message at the playhead, and drops thread ids', async () => {
    const store = new MemorySessions();
    const events = [...sampleEvents(12)];
    const id = store.addSession({}, events);
    const html = await htmlOf(store, id);
    expect(html).not.toContain('thread-0');
    const window = await open(html);
    const document = window.document;
    expect(
      [...document.querySelectorAll('.graph .node')].map((node) => node.getAttribute('data-agent')),
    ).toEqual(['planner', 'coder', 'reviewer']);
    const shown = document.querySelector('#items')?.textContent ?? '';
    expect(shown).toContain('Tool call search');
    expect(shown).not.toMatch(/thread|call-4/);
    const slider = document.querySelector('#position') as unknown as {
      value: string;
      dispatchEvent(event: unknown): void;
    };
    const seek = (position: number) => {
      slider.value = String(position);
      slider.dispatchEvent(new window.Event('input'));
    };
    const speaking = () =>
      [...document.querySelectorAll('.graph .node.speaking')].map((node) => node.getAttribute('data-agent'));
    const live = () =>
      [...document.querySelectorAll('.graph .edge.live')].map(
        (edge) => `${edge.getAttribute('data-from')}>${edge.getAttribute('data-to')}`,
      );
    // Item 2 is the second message: coder -> reviewer.
    seek(2);
    expect(speaking()).toEqual(['coder']);
    expect(live()).toEqual(['coder>reviewer']);
    expect(document.querySelector('.graph [data-agent="reviewer"]')?.classList.contains('hearing')).toBe(
      true,
    );
    seek(3);
    expect(speaking()).toEqual(['reviewer']);
    expect(live()).toEqual(['reviewer>planner']);
    // The task comes from the user: nobody in the graph speaks.
    seek(1);
    expect(speaking()).toEqual([]);
    expect(live()).toEqual([]);
    await window.happyDOM.close();
  });

  it('says why the session stopped in words, in the header and at the end', async () => {
    const store = new MemorySessions();
    const events: RunEvent[] = [];
    for (const event of sampleEvents(3)) {
      if (event.kind === 'session.stopped')
        events.push({
          ...event,
          payload: {
            status: 'completed',
            stopReason: 'max-messages',
            detail: 'The run reached its limit of 3 messages.',
          },
        } as RunEvent);
      else events.push(event as RunEvent);
    }
    const id = store.addSession({}, events);
    const window = await open(await htmlOf(store, id));
    const document = window.document;
    expect(document.querySelector('header p')?.textContent).toContain('Completed · Stopped after 3 messages');
    const last = [...document.querySelectorAll('#items li')].at(-1)?.textContent ?? '';
    expect(last).toContain('Stopped at its message limit');
    expect(last).toContain('The run reached its limit of 3 messages.');
    expect(
      `${document.querySelector('header')?.textContent}${document.querySelector('#items')?.textContent}`,
    ).not.toContain('max-messages');
    await window.happyDOM.close();
  });
});
