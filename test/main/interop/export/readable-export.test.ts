import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { Window } from 'happy-dom';
import MarkdownIt from 'markdown-it';
import type { ImportedEvent } from '../../../../src-main/history/ports';
import { exportToStream, type ExportFormat } from '../../../../src-main/interop/export';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { sampleEvents } from './sample-session';

const CONTENTS: Record<number, string> = {
  1: 'Plan:\n\n- **first** step\n- second step\n\n```python\ndef add(a, b):\n    return a + b\n```',
  2: 'The sum is \\(1 + 1\\) and \\[x^2\\], with a literal \\*star\\*.',
  3: '[click me](javascript:alert(1)) and **bold** <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>',
  6: 'Plain words,\n   indented as written.',
};
/** Message 5 is a broadcast. */
const BROADCAST_AT = 'msg-5';

function session(): { store: MemorySessions; id: string } {
  const store = new MemorySessions();
  const events = [...sampleEvents(8, (i) => CONTENTS[i] ?? `Message ${i}`)].map((event): ImportedEvent => {
    if (event.kind === 'message.completed' && event.payload.message.id === BROADCAST_AT) {
      return { ...event, payload: { message: { ...event.payload.message, to: '*' } } };
    }
    if (event.kind === 'message.started' && event.payload.messageId === BROADCAST_AT) {
      return { ...event, payload: { ...event.payload, to: '*' } };
    }
    return event;
  });
  return { store, id: store.addSession({}, events) };
}

async function exported(format: ExportFormat): Promise<string> {
  const { store, id } = session();
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  await exportToStream(store, id, format, sink);
  return chunks.join('');
}

describe('the HTML export reads like the app', () => {
  it('renders Markdown and highlighted code, keeps plain text as written, and runs nothing from a message', async () => {
    const window = new Window({
      settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true },
    });
    const document = window.document;
    document.write(await exported('html'));
    await window.happyDOM.waitUntilComplete();
    const items = [...document.querySelectorAll('#items li.item')];
    const plan = items.find((item) => item.textContent?.includes('first step'));
    expect(plan?.querySelector('.md ul li strong')?.textContent).toBe('first');
    expect(plan?.querySelector('.md pre.hljs code .hljs-keyword')?.textContent).toBe('def');
    // Only code is monospace: a prose message is not a <pre>.
    const plain = items.find((item) => item.textContent?.includes('Plain words'));
    expect(plain?.querySelector('pre')).toBeNull();
    expect(plain?.querySelector('.text')?.textContent).toBe('Plain words,\n   indented as written.');

    const hostile = items.find((item) => item.textContent?.includes('click me'));
    expect(hostile?.querySelector('.md strong')?.textContent).toBe('bold');
    expect(hostile?.querySelector('img, script, [onerror]')).toBeNull();
    expect(hostile?.querySelector('a[href^="javascript"]')).toBeNull();
    expect(hostile?.textContent).toContain('<img src=x onerror="window.pwned=1">');
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();

    // A broadcast reads "to everyone", as in the app, and the graph draws it as arrows.
    const heads = items.map((item) => item.querySelector('.who')?.textContent ?? '');
    expect(heads.filter((head) => head.endsWith('→ everyone'))).toHaveLength(1);
    expect(heads.join('\n')).not.toContain('→ *');
    expect(document.querySelectorAll('.graph .fan polygon').length).toBeGreaterThan(0);
    await window.happyDOM.close();
  });
});

describe('the Markdown export keeps what the model wrote', () => {
  it('keeps backslashes, says "everyone" for a broadcast, and keeps intended escapes', async () => {
    const md = await exported('md');
    expect(md).toContain('\\\\(1 + 1\\\\) and \\\\[x^2\\\\], with a literal \\*star\\*.');
    expect(md).toMatch(/\*\*6\. \S+ → everyone\*\*/);
    expect(md).not.toContain('→ \\*');
    // Rendered by a Markdown viewer, the reader sees what the model wrote.
    const rendered = new MarkdownIt().render(md);
    expect(rendered).toContain('The sum is \\(1 + 1\\) and \\[x^2\\], with a literal *star*.');
  });
});
