import { createWriteStream, renameSync, rmSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import type { CompareExportFormat } from '@shared/contract';
import { ioError, TransferError } from '../import/transfer-error';
import { ChunkWriter } from './chunk-writer';
import { renderCompareHtml, renderCompareMarkdown, type CompareRenderInput } from './compare-render';

export type { CompareRenderInput } from './compare-render';

/** Streams a comparison as Markdown or HTML to `out` (not ended: it may be stdout). */
export async function writeComparison(
  input: CompareRenderInput,
  format: CompareExportFormat,
  out: Writable,
): Promise<{ bytes: number }> {
  const writer = new ChunkWriter(out);
  const pieces = format === 'html' ? renderCompareHtml(input) : renderCompareMarkdown(input);
  for (const piece of pieces) {
    const flushing = writer.write(piece);
    if (flushing) await flushing;
  }
  await writer.flush();
  return { bytes: writer.bytes };
}

/**
 * Writes a comparison to a file atomically (beside it under a temporary name, renamed when
 * complete): a failure leaves no partial file. Errors are TransferErrors.
 */
export async function exportComparison(
  input: CompareRenderInput,
  format: CompareExportFormat,
  outPath: string,
): Promise<{ bytes: number }> {
  const partPath = join(dirname(outPath), `.${basename(outPath)}.${process.pid}.${Date.now()}.part`);
  let stream: WriteStream | null = null;
  try {
    stream = createWriteStream(partPath, { flags: 'wx' });
    await once(stream, 'open');
    const failed = once(stream, 'error').then(([error]: unknown[]) => Promise.reject(error));
    failed.catch(() => undefined);
    const result = await Promise.race([writeComparison(input, format, stream), failed]);
    stream.end();
    await Promise.race([once(stream, 'close'), failed]);
    renameSync(partPath, outPath);
    return result;
  } catch (error) {
    stream?.destroy();
    try {
      rmSync(partPath, { force: true });
    } catch {
      // Nothing was created there (the folder is missing or not a folder).
    }
    if (error instanceof TransferError) throw error;
    throw ioError('write', outPath, error);
  }
}
