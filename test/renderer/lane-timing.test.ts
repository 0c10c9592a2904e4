import { describe, expect, it } from 'vitest';
import { callTiming } from '../../src-renderer/lanes/row-drawing';

describe('lane row timing', () => {
  it("labels a turn with its call's duration and time to first token, and nothing when not recorded", () => {
    expect(callTiming({ usage: { durationMs: 2300, firstTokenMs: 420 } })).toBe('2.3 s, 1st token 420 ms');
    expect(callTiming({ usage: { durationMs: 800 } })).toBe('800 ms');
    expect(callTiming({})).toBe('');
  });
});
