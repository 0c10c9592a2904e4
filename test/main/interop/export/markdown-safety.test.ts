import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import type { ImportedEvent } from '../../../../src-main/history/ports';
import { exportSession } from '../../../../src-main/interop/export';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { sampleEvents } from './sample-session';

/** Untrusted text that tries to become a live link, image or HTML in a Markdown viewer. */
const HOSTILE = [
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click]( javascript:alert(1) "title")',
  '[click](<javascript:alert(1)>)',
  '[click](&#106;avascript:alert(1))',
  '[click](java&#115;cript:alert(1))',
  '[click](javascript&colon;alert(1))',
  '[click](vbscript:msgbox(1))',
  '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[click](\njavascript:alert(1))',
  '[relative](/etc/passwd) [anchor](#top) [scheme-relative](//evil.example/x)',
  '![img](data:image/svg+xml;base64,PHN2Zz4=)',
  '![img](file:///etc/passwd)',
  '[ref][r]\n\n[r]: javascript:alert(1)',
  '[r2]\n\n[r2]:\n  javascript:alert(2)',
  '![i][img]\n\n[img]: data:image/png;base64,AAAA',
  '<javascript:alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<img src=x onerror=alert(1)>',
  '\\<a href="javascript:alert(2)">already escaped</a>',
  '\\\\<a href="javascript:alert(3)">escaped backslash</a>',
  '[nested [inner](javascript:alert(1))](https://ok.example/outer)',
];
const WEB_LINKS = '[docs](https://example.com/docs) and [mail](mailto:someone@example.com)';
const READABLE = `He said "hi" & it's <fine>; the code is \`a < b\`.`;

let dir: string;
let markdown: string;

function events(): ImportedEvent[] {
  const contents = [READABLE, WEB_LINKS, ...HOSTILE];
  const list = [...sampleEvents(contents.length, (i) => contents[i] ?? '')];
  const started = list[0];
  if (started?.kind === 'session.started') {
    list[0] = { ...started, payload: { ...started.payload, parentSessionId: 'p|[x](javascript:alert(1))|' } };
  }
  const stopped = list.pop() as ImportedEvent;
  const hostile = '[x](javascript:alert(1))';
  list.push(
    {
      t: 900,
      agent: 'planner',
      kind: 'message.completed',
      payload: {
        message: {
          id: `odd\n${hostile}`,
          threadId: `thread\n${hostile}`,
          parentId: `parent\`\n${hostile}`,
          from: 'planner',
          to: 'coder',
          kind: 'function',
          content: 'calling',
          meta: {},
          toolCalls: [
            {
              id: '"><img src=x>',
              name: '</code></summary></details><img src=x onerror=alert(1)>',
              arguments: '{}',
            },
          ],
          state: 'complete',
          t: 900,
        },
      },
    },
    { t: 901, agent: null, kind: 'error', payload: { code: `boom\n${hostile}`, message: `bad ${hostile}` } },
    {
      t: 902,
      agent: null,
      kind: 'human.requested',
      payload: { prompt: `Open ${hostile}?`, requestId: 'r1' },
    },
    stopped,
  );
  return list;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-md-safety-'));
  const store = new MemorySessions();
  const id = store.addSession(
    {
      title: `The "quoted" title's ${'[t](javascript:alert(1))'}`,
      task: `Task: ${HOSTILE[0]}`,
      tags: ['a"b'],
    },
    events(),
  );
  const path = join(dir, 'session.md');
  await exportSession(store, id, 'md', path);
  markdown = readFileSync(path, 'utf8');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A lax viewer: raw HTML on, bare URLs linked, and no scheme check of its own. */
function render(text: string) {
  const viewer = new MarkdownIt({ html: true, linkify: true });
  viewer.validateLink = () => true;
  return viewer.parse(text, {}).flatMap((token) => [token, ...(token.children ?? [])]);
}

describe('Markdown export of untrusted text', () => {
  it('lets no link or image point anywhere but http, https or mailto, even in a lax viewer', () => {
    const tokens = render(markdown);
    const targets = tokens.flatMap((token): string[] => {
      if (token.type === 'link_open') return [String(token.attrGet('href') ?? '')];
      if (token.type === 'image') return [String(token.attrGet('src') ?? '')];
      return [];
    });
    expect(targets.filter((target) => !/^(https?:\/\/|mailto:)/i.test(target))).toEqual([]);
    expect(targets).toEqual(
      expect.arrayContaining([
        'https://example.com/docs',
        'mailto:someone@example.com',
        'https://ok.example/outer',
      ]),
    );
  });

  it('lets no raw HTML through but its own details, summary and code tags', () => {
    const html = render(markdown)
      .filter((token) => token.type === 'html_block' || token.type === 'html_inline')
      .map((token) => token.content);
    const tags = html.flatMap((content) => content.match(/<\/?[A-Za-z][^>]*>/g) ?? []);
    expect(tags.filter((tag) => !/^<\/?(details|summary|code)>$/.test(tag))).toEqual([]);
  });

  it('stays readable as plain text: quotes and apostrophes as written, no HTML entities', () => {
    expect(markdown).not.toMatch(/&quot;|&#39;|&#x27;|&apos;/);
    expect(markdown).toContain(`> He said "hi" & it's \\<fine>; the code is \`a \\< b\`.`);
    expect(markdown).toMatch(/^# The "quoted" title's /m);
    expect(markdown).toContain('| Tags | a"b |');
    // The hostile link is still there to read, only not live.
    expect(markdown).toContain('> [click]\\(javascript:alert(1))');
  });

  it('ends with exactly one newline', () => {
    expect(markdown.endsWith('\n')).toBe(true);
    expect(markdown.endsWith('\n\n')).toBe(false);
  });
});
