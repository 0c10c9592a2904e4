import type { Bridge } from './types';

let current: Bridge | null = null;

/** Installs the bridge the app (or a test) uses. */
export function setBridge(bridge: Bridge): void {
  current = bridge;
}

export function useBridge(): Bridge {
  if (!current) throw new Error('The bridge is not set up yet');
  return current;
}
