import { layeredLayout } from '../ui/layered-layout';
import type { Position } from './canvas-types';

/** Left-to-right layered positions (top-left corners) for builder nodes, ranked along the edges. */
export function layeredPositions(
  ids: readonly string[],
  edges: ReadonlyArray<{ source: string; target: string }>,
): Record<string, Position> {
  return layeredLayout(ids, edges, {
    nodeWidth: 200,
    nodeHeight: 80,
    nodeSeparation: 50,
    rankSeparation: 60,
    round: true,
  });
}
