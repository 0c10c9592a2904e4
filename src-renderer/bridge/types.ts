import type { ChannelName, Delivered, Input, Output, Result } from '@shared/contract';

/** What an import asks for besides the file: the `sessions.importData` fields other than `content`. */
export type ImportRequest = Omit<Input<'sessions.importData'>, 'content'>;

/** How a caller follows and stops the sending of an import's file (the browser's upload). */
export interface ImportTransfer {
  /** Bytes of the file sent so far of its size, while it is sent (before the host imports it). */
  onUpload?: (sent: number, total: number) => void;
  /**
   * Aborting it stops the upload, or the import the host has begun (which deletes what it wrote);
   * the answer is then an `unavailable` error saying so. Surfaces that send no upload ignore it.
   */
  signal?: AbortSignal;
}

export type ConnectionState = 'connecting' | 'online' | 'offline';

/** The renderer's one way to reach the backend, whatever the transport. */
export interface Bridge {
  readonly surface: 'desktop' | 'browser';
  call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Result<Output<C>>>;
  /** Every event, in seq order, each exactly once. Returns the unsubscribe function. */
  onDidReceiveEvent(listener: (event: Delivered) => void): () => void;
  /** Fired when events were missed beyond repair: views must reload what they show. */
  onDidRequireResync(listener: () => void): () => void;
  onDidChangeConnection(listener: (state: ConnectionState) => void): () => void;
  /**
   * Receive live `run.events` of this session until the returned function is called: a session
   * view watches its session when it opens and releases it when it closes. Other events (store
   * changes, progress) arrive whatever is watched.
   */
  watchSession(sessionId: string): () => void;
  /**
   * Imports a transcript file, answering as `sessions.importData` does (progress comes as
   * task.progress events under `request.taskId`). The browser streams the file to the web host
   * (never held whole in the page or a WebSocket frame), reporting and honouring `transfer`; the
   * desktop sends its text over IPC.
   */
  importFile(
    file: Blob,
    request: ImportRequest,
    transfer?: ImportTransfer,
  ): Promise<Result<Output<'sessions.importData'>>>;
  readonly connection: ConnectionState;
  /**
   * The native folder picker: the chosen folder's full path, or null when cancelled. Only the
   * desktop has one (a browser page cannot learn a folder's path); absent elsewhere.
   */
  readonly pickFolder?: () => Promise<string | null>;
  dispose(): void;
}

/** What the desktop preload exposes as `window.fleetscope`. */
export interface PreloadApi {
  surface: 'desktop';
  calls: Record<string, (payload: unknown) => Promise<unknown>>;
  onEvents(listener: (events: Delivered[]) => void): () => void;
  /** Absent from a preload older than the renderer. */
  pickFolder?(): Promise<string | null>;
}
