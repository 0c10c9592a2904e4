import { describe, expect, it } from 'vitest';
import { drawablePath, measured } from '../../../src-renderer/graph/pulse-path';
import { broadcastRay } from '../../../src-renderer/graph/broadcast-route';

describe('where graph pulses may be drawn', () => {
  const box = { x: 10, y: 20, width: 100, height: 40 };

  it('draws no ray to or from a node not measured yet, missing or placed at no number', () => {
    const unmeasured = { x: 200, y: 20, width: 0, height: 0 };
    expect(measured(unmeasured)).toBe(false);
    expect(broadcastRay(box, unmeasured)).toBeNull();
    expect(broadcastRay(unmeasured, box)).toBeNull();
    expect(broadcastRay(box, null)).toBeNull();
    expect(broadcastRay(undefined, box)).toBeNull();
    expect(broadcastRay(box, { ...box, x: Number.NaN })).toBeNull();
    expect(broadcastRay(box, { ...box, height: Number.POSITIVE_INFINITY })).toBeNull();
  });

  it('accepts an edge path only when every number in it is finite', () => {
    expect(drawablePath('M 296.2 108 Q 378.9 215.3 394.7 357.8')).toBe(true);
    expect(drawablePath('M -4 1e3 L 5 6')).toBe(true);
    expect(drawablePath('M NaN NaN Q 1 2 3 4')).toBe(false);
    expect(drawablePath('M 1 2 L Infinity 4')).toBe(false);
    expect(drawablePath('')).toBe(false);
    expect(drawablePath('M 1 2')).toBe(false);
  });
});
