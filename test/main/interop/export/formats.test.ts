import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExportFormat } from '../../../../src-main/interop/export';
import { exportSession } from '../../../../src-main/interop/export';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { sampleEvents } from './sample-session';

const INJECTION = '<script>alert("pwned")</script></script><!-- <img src=x onerror=alert(1)>';
const MARKDOWN_BREAKER =
  '</details>\n# Not a heading of ours\n```\nunclosed fence\n<details><summary>fake</summary>';

let dir: string;
let store: MemorySessions;
let sessionId: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetscope-formats-'));
  store = new MemorySessions();
  const contents: Record<number, string> = { 2: INJECTION, 3: MARKDOWN_BREAKER };
  sessionId = store.addSession({ title: 'Formats <b>demo</b>', fleetName: 'review-team' }, [
    ...sampleEvents(1100, (i) => contents[i] ?? `Message ${i}`),
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function exported(format: ExportFormat): Promise<string> {
  const path = join(dir, `session.${format}`);
  await exportSession(store, sessionId, format, path);
  return readFileSync(path, 'utf8');
}

describe('HTML export', () => {
  it('is self-contained: no URLs, no external scripts, styles or fonts, and a CSP that forbids fetches', async () => {
    const html = await exported('html');
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<link|@import|url\(|<script[^>]+src=|<iframe/i);
    expect(html).toContain(`content="default-src 'none';`);
    expect(html).toMatch(/id="play"/);
    expect(html).toMatch(/type="range"/);
  });

  it('escapes a script-injection message: only our two script elements exist, the payload is data', async () => {
    const html = await exported('html');
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain('\\u003cscript>alert(\\"pwned\\")\\u003c/script>');
    expect(html).toContain('<h1>Formats &lt;b&gt;demo&lt;/b&gt;</h1>');
    const data =
      /<script type="application\/json" id="fleetscope-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const parsed = JSON.parse(data) as {
      agents: Array<{ name: string }>;
      items: Array<{ k: string; content?: string }>;
    };
    expect(parsed.agents.map((agent) => agent.name)).toEqual(['planner', 'coder', 'reviewer']);
    const messages = parsed.items.filter((item) => item.k === 'm');
    expect(messages).toHaveLength(1100);
    expect(messages[2]?.content).toBe(INJECTION);
    expect(parsed.items.some((item) => item.k === 'handoff')).toBe(true);
    expect(parsed.items.at(-1)?.k).toBe('stop');
  });
});

describe('Markdown export', () => {
  it('keeps threads, sender -> receiver, tool calls and results collapsed, handoffs, errors and the stop reason', async () => {
    const md = await exported('md');
    expect(md).toContain('### Thread 1, started by user\n');
    expect(md).toContain('### Thread 2, started by coder\n');
    expect(md).not.toMatch(/thread-\d/);
    // A reply to the message just before says nothing; a reply further back names its number.
    expect(md).toMatch(/\*\*2\. coder → reviewer\*\* · text · 0:00\.015 · 101 in, 20 out, no price\n/);
    expect(md).toContain('<details><summary>Tool call <code>search</code> · call-4</summary>');
    expect(md).toContain('<details><summary>Tool result <code>search</code> · call-4</summary>');
    expect(md).toContain('<details><summary>Tool error <code>search</code> · call-14</summary>');
    expect(md).toMatch(/\*\*↪ Handoff\*\* coder → reviewer/);
    expect(md).toMatch(/> \*\*Error\*\* `provider-timeout` · .*The model took too long \\<once>\./);
    expect(md).toMatch(
      /## Outcome\n\n\*\*Status:\*\* completed {2}\n\*\*Stop reason:\*\* max-messages reached/,
    );
  });

  it('quotes and escapes message content so it cannot break the structure', async () => {
    const md = await exported('md');
    expect(md.match(/<details>/g)?.length).toBe(md.match(/<\/details>/g)?.length);
    expect(md).toContain('> \\</details>\n> # Not a heading of ours\n> ```\n> unclosed fence');
    expect(md).not.toContain('\n# Not a heading');
    expect(md).toContain(
      '> \\<script>alert("pwned")\\</script>\\</script>\\<!-- \\<img src=x onerror=alert(1)>',
    );
    expect(md).toMatch(/^# Formats \\<b>demo\\<\/b>$/m);
  });
});

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  events: Array<{ name: string }>;
}

function attr(span: Span | undefined, key: string): unknown {
  const value = span?.attributes.find((attribute) => attribute.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
}

describe('OTLP export', () => {
  it('is one trace with a root invoke_agent span, chat spans per turn and execute_tool spans under them', async () => {
    const otlp = JSON.parse(await exported('otlp')) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }>;
    };
    const spans = otlp.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([spans[0]?.traceId]));
    expect(spans[0]?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.every((span) => /^[0-9a-f]{16}$/.test(span.spanId))).toBe(true);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
    const roots = spans.filter((span) => !span.parentSpanId);
    expect(roots).toHaveLength(1);
    const root = roots[0];
    expect(root?.name).toBe('invoke_agent review-team');
    expect(attr(root, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(root?.events.filter((event) => event.name === 'exception')).toHaveLength(1);
    const ids = new Set(spans.map((span) => span.spanId));
    expect(spans.every((span) => !span.parentSpanId || ids.has(span.parentSpanId))).toBe(true);

    const chats = spans.filter((span) => attr(span, 'gen_ai.operation.name') === 'chat');
    expect(chats).toHaveLength(1099); // every message but the user's task
    const planner = chats.find((span) => attr(span, 'gen_ai.agent.name') === 'planner');
    expect(planner?.name).toBe('chat gpt-4o-mini');
    expect(planner?.parentSpanId).toBe(root?.spanId);
    expect(attr(planner, 'gen_ai.provider.name')).toBe('openai');
    expect(attr(planner, 'gen_ai.request.model')).toBe('gpt-4o-mini');
    expect(attr(planner, 'gen_ai.usage.input_tokens')).toMatch(/^\d+$/);
    expect(attr(planner, 'gen_ai.usage.output_tokens')).toBe('20');

    const tools = spans.filter((span) => attr(span, 'gen_ai.operation.name') === 'execute_tool');
    expect(tools.length).toBeGreaterThan(200);
    const tool = tools.find((span) => attr(span, 'gen_ai.tool.call.id') === 'call-4');
    expect(tool?.name).toBe('execute_tool search');
    expect(attr(tool, 'gen_ai.tool.name')).toBe('search');
    const turn = chats.find((span) => attr(span, 'fleetscope.message.id') === 'msg-4');
    expect(tool?.parentSpanId).toBe(turn?.spanId);
    for (const span of spans) {
      expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
      expect(BigInt(span.startTimeUnixNano) <= BigInt(span.endTimeUnixNano)).toBe(true);
    }
    expect(root?.startTimeUnixNano).toBe(`${Date.UTC(2025, 0, 2, 3, 4, 5)}000000`);
  });
});

describe('export failures', () => {
  it('fails cleanly on an unwritable path and leaves no file behind', async () => {
    const notADir = join(dir, 'plain-file');
    writeFileSync(notADir, 'x');
    for (const target of [join(notADir, 'out.md'), join(dir, 'missing', 'deeper', 'out.md')]) {
      const error = await exportSession(store, sessionId, 'md', target).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'io-error' });
      expect(String((error as Error).message)).toContain(target);
    }
    expect(readdirSync(dir).filter((name) => name.includes('out.md'))).toEqual([]);
  });

  it('leaves no partial file when the store fails midway', async () => {
    const failing = {
      getSession: (id: string) => store.getSession(id),
      countEvents: (id: string) => store.countEvents(id),
      *iterateEvents(id: string) {
        let n = 0;
        for (const event of store.iterateEvents(id)) {
          if (++n > 2000) throw new Error('disk I/O error');
          yield event;
        }
      },
    };
    const target = join(dir, 'midway.json');
    const error = await exportSession(failing, sessionId, 'json', target).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'io-error' });
    expect(readdirSync(dir).filter((name) => name.includes('midway'))).toEqual([]);
  });

  it('says not-found for an unknown session and creates nothing', async () => {
    const target = join(dir, 'ghost.json');
    const error = await exportSession(store, 'no-such-session', 'json', target).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'not-found' });
    expect(readdirSync(dir).filter((name) => name.includes('ghost'))).toEqual([]);
  });
});
