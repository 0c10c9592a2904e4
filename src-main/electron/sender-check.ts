/**
 * The parts of Electron's WebFrameMain the sender check reads. Kept structural (no 'electron'
 * import) so the check is a pure function that runs and is tested in plain Node.
 */
export interface FrameLike {
  readonly url: string;
  /** The embedding frame; null only for a window's main (top-level) frame. */
  readonly parent: object | null;
  /** True once the frame left the frame tree (e.g. replaced by a navigation). */
  readonly detached: boolean;
  isDestroyed(): boolean;
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * True only when an IPC call comes from the live main frame of a window that still shows our
 * renderer at `rendererUrl`. Refused: no frame, a destroyed or detached frame, any subframe
 * (iframes never get the contract), a frame whose URL is not parseable, and a frame showing any
 * other origin or, for a `file:` renderer, any other file (a window navigated away is foreign).
 * A `rendererUrl` that is not a URL refuses everything.
 */
export function isTrustedSender(frame: FrameLike | null | undefined, rendererUrl: string): boolean {
  if (!frame || frame.parent !== null || frame.detached || frame.isDestroyed()) return false;
  const expected = parseUrl(rendererUrl);
  const actual = parseUrl(frame.url);
  if (!expected || !actual || actual.protocol !== expected.protocol) return false;
  if (expected.protocol === 'file:') {
    return actual.host === expected.host && actual.pathname === expected.pathname;
  }
  return actual.origin !== 'null' && actual.origin === expected.origin;
}
