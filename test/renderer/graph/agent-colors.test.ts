import { describe, expect, it } from 'vitest';
import {
  AGENT_PALETTE,
  agentColor,
  contrastRatio,
  relativeLuminance,
} from '../../../src-renderer/session/agent-colors';

const LIGHT = '#ffffff';
const DARK = '#1b1d22';

describe('agentColor', () => {
  it('is stable: the same name and index give the same colour', () => {
    expect(agentColor('critic', 2)).toBe(agentColor('critic', 2));
    expect(agentColor('stranger', -1)).toBe(agentColor('stranger', -1));
  });

  it('gives the first agents the distinct palette colours in fleet order', () => {
    const colours = AGENT_PALETTE.map((_, index) => agentColor(`agent${index}`, index));
    expect(colours).toEqual([...AGENT_PALETTE]);
    expect(new Set(colours).size).toBe(AGENT_PALETTE.length);
  });

  it('gives 50 agents 50 different colours', () => {
    const colours = Array.from({ length: 50 }, (_, index) => agentColor(`a${index}`, index));
    expect(new Set(colours).size).toBe(50);
  });

  it('reads at 3:1 or better on both themes for every index and for unlisted names', () => {
    const colours = [
      ...Array.from({ length: 80 }, (_, index) => agentColor(`a${index}`, index)),
      ...['user', 'x', 'researcher', 'Ωmega', ''].map((name) => agentColor(name, -1)),
    ];
    for (const colour of colours) {
      expect(colour).toMatch(/^#[0-9a-f]{6}$/);
      expect(contrastRatio(colour, LIGHT), colour).toBeGreaterThanOrEqual(3);
      expect(contrastRatio(colour, DARK), colour).toBeGreaterThanOrEqual(3);
    }
  });

  it('derives the colour of an agent without an index from its name', () => {
    expect(agentColor('alpha', -1)).not.toBe(agentColor('beta', -1));
    expect(agentColor('alpha', 1.5)).toBe(agentColor('alpha', -1));
  });

  it('measures luminance as WCAG defines it', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#ffffff')).toBeCloseTo(1, 6);
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 6);
  });
});
