import { describe, expect, it } from 'vitest';
import { ref } from 'vue';
import { createFailureReporter } from '../../src-renderer/ui/failure';
import { layeredLayout } from '../../src-renderer/ui/layered-layout';

describe('a store reporting a failed call', () => {
  it('shows the call error after its context, toasts it and returns the fallback', () => {
    const error = ref<string | null>(null);
    const toasts: string[] = [];
    const fail = createFailureReporter(error, (message) => toasts.push(message));
    const returned = fail({ code: 'not-found', message: 'no such session' }, false, 'Could not rename');
    expect(returned).toBe(false);
    expect(error.value).toBe('Could not rename: no such session');
    expect(toasts).toEqual(['Could not rename: no such session']);
  });

  it('shows a plain message as it is, and without a toast when the store gives none', () => {
    const error = ref<string | null>('older');
    const fail = createFailureReporter(error);
    expect(fail('The stored event log has a gap', null)).toBeNull();
    expect(error.value).toBe('The stored event log has a gap');
  });
});

describe('the layered layout', () => {
  const box = { nodeWidth: 100, nodeHeight: 50, nodeSeparation: 20, rankSeparation: 60 };

  it('places ranked nodes left to right and ignores self-loops and edges to unknown nodes', () => {
    const positions = layeredLayout(
      ['a', 'b', 'c'],
      [
        { source: 'a', target: 'b' },
        { source: 'b', target: 'c' },
        { source: 'c', target: 'c' },
        { source: 'c', target: 'ghost' },
      ],
      box,
    );
    expect(Object.keys(positions).sort()).toEqual(['a', 'b', 'c']);
    expect(positions.a!.x).toBeLessThan(positions.b!.x);
    expect(positions.b!.x).toBeLessThan(positions.c!.x);
    // Top-left corners: the first rank starts at the margin.
    expect(positions.a!.x).toBe(0);
  });

  it('leaves the margin around the drawing', () => {
    const positions = layeredLayout(['only'], [], { ...box, margin: 20 });
    expect(positions.only).toEqual({ x: 20, y: 20 });
  });
});
