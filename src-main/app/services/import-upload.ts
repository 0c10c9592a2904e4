import type { Output } from '@shared/contract';
import type { HistoryStore } from '../../history';
import { fileHash, importFile } from '../../interop/import';
import type { EventHub } from '../delivery/event-hub';
import { trackTask } from './task-progress';

/** What a page asked for when it sent a file to import (the `sessions.importData` input minus the text). */
export interface UploadedImport {
  /** The file on disk: a temp copy the caller deletes once this resolves or rejects. */
  path: string;
  /** The name the person picked, shown in progress and kept in refusals. */
  fileName: string;
  taskId?: string;
  allowDuplicate?: boolean;
  /** The file's SHA-256 (hex) when the caller computed it while receiving; read from the file otherwise. */
  sourceHash?: string;
  /**
   * Aborted when the page that asked went away (or cancelled): the import stops and deletes
   * what it wrote, and the call rejects with ImportCancelled. An import already finished stays.
   */
  signal?: AbortSignal;
}

/** An import its caller's signal stopped: nothing of it is left in the store. */
export class ImportCancelled extends Error {
  constructor(fileName: string) {
    super(`The import of ${fileName} was cancelled.`);
    this.name = 'ImportCancelled';
  }
}

/** A safe file name for an upload: its base name in letters, digits, dots, dashes and underscores. */
export function uploadName(fileName: string): string {
  const base = (fileName.split(/[\\/]/).pop() ?? '').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '');
  return base.slice(-120) || 'upload.json';
}

/**
 * Imports a file a surface received from a page (the `sessions.importData` text written to disk,
 * or the web host's streamed upload) through the file import entry, reporting `task.progress`
 * under the page's task id. The same file imported before is not imported twice unless asked:
 * the answer then names the earlier session and nothing is written. Rejects with the import's
 * own errors (TransferError), which the callers turn into error codes.
 */
export async function importUploadedFile(
  deps: { store: HistoryStore; hub: EventHub },
  upload: UploadedImport,
): Promise<Output<'sessions.importData'>> {
  const task = trackTask(deps.hub, `Importing ${upload.fileName}`, upload.taskId);
  const { signal } = upload;
  const stopIfCancelled = () => {
    if (signal?.aborted) throw new ImportCancelled(upload.fileName);
  };
  try {
    stopIfCancelled();
    const sourceHash = upload.sourceHash ?? (await fileHash(upload.path));
    const earlier = upload.allowDuplicate ? null : deps.store.findImport(sourceHash);
    if (earlier) {
      const { sessionId, source: format, messageCount, title } = earlier;
      return { sessionId, format, messageCount, earlier: { title } };
    }
    const { sessionId, format, messageCount, sessionIds } = await importFile(upload.path, deps.store, {
      sourceHash,
      onProgress: (done, total) => task.progress(done, total),
      ...(signal ? { signal } : {}),
    }).catch((error: unknown) => {
      stopIfCancelled();
      throw error;
    });
    return { sessionId, format, messageCount, sessionIds };
  } finally {
    task.finish(1, 1);
  }
}
