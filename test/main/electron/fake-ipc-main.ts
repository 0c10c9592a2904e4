import type { InvokeEventLike, InvokeListener, IpcMainLike } from '../../../src-main/electron/ipc';
import type { FrameLike } from '../../../src-main/electron/sender-check';

/**
 * An in-memory ipcMain with Electron's rules for invoke handlers: one handler per channel (a
 * second registration throws, as Electron's does) and an invoke on an unhandled channel rejects.
 */
export class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, InvokeListener>();

  handle(channel: string, listener: InvokeListener): void {
    if (this.handlers.has(channel)) {
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    }
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  /** What `ipcRenderer.invoke(channel, payload)` from `senderFrame` would resolve to. */
  async invoke(channel: string, senderFrame: FrameLike | null, payload: unknown): Promise<unknown> {
    const listener = this.handlers.get(channel);
    if (!listener) throw new Error(`No handler registered for '${channel}'`);
    const event: InvokeEventLike = { senderFrame };
    return listener(event, payload);
  }
}

/** A frame as Electron's WebFrameMain describes it; the main frame of a live window by default. */
export function frame(
  url: string,
  overrides: Partial<Omit<FrameLike, 'isDestroyed'>> & { destroyed?: boolean } = {},
): FrameLike {
  const { destroyed = false, ...rest } = overrides;
  return { url, parent: null, detached: false, isDestroyed: () => destroyed, ...rest };
}
