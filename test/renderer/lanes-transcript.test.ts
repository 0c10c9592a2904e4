import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import { BROADCAST, type Message } from '@shared/domain';
import MessageItem from '../../src-renderer/transcript/MessageItem.vue';
import { bodyMode, renderBody } from '../../src-renderer/transcript/markdown';
import { rowProps } from './message-row';

/** The text a browser shows for sanitized HTML (entities decoded, tags dropped). */
function textOf(html: string): string {
  const element = document.createElement('div');
  element.innerHTML = html;
  return element.textContent ?? '';
}

const message = (content: string, kind: Message['kind'] = 'text'): Message => ({
  id: 'm1',
  threadId: 'm1',
  parentId: null,
  from: 'coder',
  to: 'critic',
  kind,
  content,
  meta: {},
  state: 'complete',
  t: 1200,
});

describe('message bodies keep their whitespace', () => {
  it('shows text without markdown exactly as written: leading spaces, indentation, blank lines', () => {
    const reply = '   three leading spaces\n\ndef average(values):\n    total = sum(values)\n\treturn total';
    expect(bodyMode(reply, 'text')).toBe('plain');
    const { html } = renderBody(reply, 'text');
    expect(textOf(html)).toBe(reply);
  });

  it('makes web links clickable in plain text, and nothing else', () => {
    const { html } = renderBody('see https://example.org/a?b=1 and javascript:alert(1) <b>x</b>', 'text');
    expect(html).toContain('<a href="https://example.org/a?b=1"');
    expect(html).not.toContain('<b>');
    expect(html).not.toMatch(/href="javascript/i);
    expect(textOf(html)).toContain('<b>x</b>');
  });

  it('keeps the indentation of unfenced code inside a markdown reply', () => {
    const reply =
      'Here is **the fix**:\nfunction average(values) {\n  if (values.length === 0) return null;\n    return 1;\n}';
    expect(bodyMode(reply, 'text')).toBe('markdown');
    const text = textOf(renderBody(reply, 'text').html).replace(/\u00a0/g, ' ');
    expect(text).toContain('\n  if (values.length === 0) return null;');
    expect(text).toContain('\n    return 1;');
    const indented = textOf(renderBody('  *starts* indented', 'text').html).replace(/\u00a0/g, ' ');
    expect(indented.trimEnd()).toBe('  starts indented');
  });

  it('draws an unfenced code message as one highlighted block, whatever backticks it holds', () => {
    const code = 'function average(values) {\n  return values.reduce((a, b) => a + b, 0); // ```\n}';
    expect(bodyMode(code, 'code')).toBe('code');
    const { html } = renderBody(code, 'code');
    expect(html).toContain('<code>');
    expect(html).toContain('hljs-keyword');
    expect(textOf(html).trimEnd()).toBe(code);
  });

  it('still highlights fenced code as markdown', () => {
    const { mode, html } = renderBody('Try:\n\n```js\nconst a = 1;\n```', 'text');
    expect(mode).toBe('markdown');
    expect(html).toContain('hljs-keyword');
  });

  it('renders the transcript row with the body mode and the sender colour, and picks it on click', async () => {
    const wrapper = mount(MessageItem, {
      props: rowProps(message('  indented\n    more', 'text'), { color: '#3a7be0' }),
    });
    const body = wrapper.get('[data-testid="message-body"]');
    expect(body.attributes('data-mode')).toBe('plain');
    expect(body.element.textContent).toBe('  indented\n    more');
    expect(wrapper.get('[data-testid="message"]').attributes('style')).toContain('--agent: #3a7be0');
    expect(wrapper.get('[data-testid="message"]').attributes('data-state')).toBe('complete');
    await wrapper.get('header').trigger('click');
    expect(wrapper.emitted('pick')).toEqual([['m1']]);
  });

  it('titles the header\'s name piece with the whole "from → to" (a narrow pane cuts it with an ellipsis)', () => {
    const from = 'research/fact-checker-of-every-cited-source';
    const wrapper = mount(MessageItem, {
      props: rowProps(
        { ...message('checking', 'text'), from, to: BROADCAST, state: 'streaming' },
        { depth: 2 },
      ),
    });
    const pieces = wrapper.get('header').element.children;
    expect(Array.from(pieces, (piece) => piece.className)).toEqual(['who', 'kind', 'time', 'state']);
    expect(wrapper.get('header > .who').attributes('title')).toBe(`${from} → everyone`);
    expect(wrapper.get('[data-testid="message-state"]').text()).toBe('streaming');
  });
});
