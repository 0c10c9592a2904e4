import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import type { Message } from '@shared/domain';
import MessageItem from '../../src-renderer/transcript/MessageItem.vue';

const listing = Array.from({ length: 200 }, (_, index) => `[FILE] note-${index}.md`).join('\n');

function resultMessage(
  results: Array<{ callId: string; content: string; images?: Array<{ mimeType: string; data: string }> }>,
): Message {
  return {
    id: 'r1',
    threadId: 't',
    parentId: null,
    from: 'scout',
    to: 'scout',
    kind: 'tool',
    content: 'results',
    meta: {},
    state: 'complete',
    t: 0,
    toolResults: results.map((result) => ({
      ...result,
      name: 'files__list_directory',
      isError: false,
    })) as Message['toolResults'],
  };
}

function show(message: Message) {
  return mount(MessageItem, {
    props: {
      message,
      depth: 0,
      descendants: 0,
      collapsed: false,
      droppedReason: null,
      highlighted: false,
      toggleable: false,
    },
  });
}

describe('tool results in the transcript', () => {
  it('folds a long result to its start, with Show all and Show less', async () => {
    const view = show(resultMessage([{ callId: 'c1', content: listing }]));
    await flushPromises();
    const body = () => view.get('[data-testid="tool-result-body"]').text();
    expect(body()).toContain('note-0.md');
    expect(body()).not.toContain('note-199.md');
    const fold = view.get('[data-testid="tool-result-fold"]');
    expect(fold.text()).toMatch(/^Show all \(.+ more\)$/);
    await fold.trigger('click');
    expect(body()).toContain('note-199.md');
    expect(view.get('[data-testid="tool-result-fold"]').text()).toBe('Show less');
    await view.get('[data-testid="tool-result-fold"]').trigger('click');
    expect(body()).not.toContain('note-199.md');
  });

  it('shows a short result whole and JSON pretty-printed, with nothing to fold', async () => {
    const view = show(resultMessage([{ callId: 'c2', content: '{"entries":["a.md","b.md"]}' }]));
    await flushPromises();
    expect(view.get('[data-testid="tool-result-body"]').text()).toBe(
      '{\n  "entries": [\n    "a.md",\n    "b.md"\n  ]\n}',
    );
    expect(view.find('[data-testid="tool-result-fold"]').exists()).toBe(false);
  });

  it('shows images as images, and only raster base64 ones as data: URLs', async () => {
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const view = show(
      resultMessage([
        {
          callId: 'c3',
          content: '[image image/png, 70 bytes]',
          images: [
            { mimeType: 'image/png', data: png },
            { mimeType: 'image/svg+xml', data: 'PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+' },
            { mimeType: 'image/png', data: 'x" onerror="alert(1)' },
          ],
        },
      ]),
    );
    await flushPromises();
    const images = view.findAll('[data-testid="tool-result-image"]');
    expect(images).toHaveLength(1);
    expect(images[0]?.attributes('src')).toBe(`data:image/png;base64,${png}`);
    expect(images[0]?.attributes('alt')).toBe('Image 1 returned by files/list_directory');
  });
});
