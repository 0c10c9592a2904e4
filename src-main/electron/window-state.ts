import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const boundsSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400),
  height: z.number().int().min(300),
  maximized: z.boolean().default(false),
});
export type WindowBounds = z.infer<typeof boundsSchema>;

const DEFAULT_BOUNDS: WindowBounds = { width: 1280, height: 820, maximized: false };

/** Window size and position, remembered across launches in DATA_DIR/window-state.json. */
export function loadWindowBounds(dataDir: string): WindowBounds {
  try {
    return boundsSchema.parse(JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8')));
  } catch {
    return DEFAULT_BOUNDS;
  }
}

export function saveWindowBounds(dataDir: string, bounds: WindowBounds): void {
  try {
    writeFileSync(join(dataDir, 'window-state.json'), JSON.stringify(bounds));
  } catch {
    // Losing the window position is not worth interrupting a quit.
  }
}
