import { it } from 'vitest';
import { Writable } from 'node:stream';
import { EXPORT_FORMATS, exportToStream } from '../../src-main/history/export';
import { GeneratedSession } from '../main/history/export/sample-session';

const MESSAGES = 100_000;

/** Discards output, counting bytes: measures rendering, not the disk. */
class NullSink extends Writable {
  override _write(_chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    callback();
  }
}

it(`exports a ${MESSAGES / 1000}k-message session to each format (MB/s)`, async () => {
  const session = new GeneratedSession(MESSAGES);
  // Generating the events costs time too; measured alone so the figures can be read net of it.
  let start = performance.now();
  let generated = 0;
  for (const event of session.iterateEvents(session.id)) if (event) generated++;
  const generation = (performance.now() - start) / 1000;
  console.log(`generating ${generated} events: ${generation.toFixed(2)} s`);
  for (const format of EXPORT_FORMATS) {
    start = performance.now();
    const result = await exportToStream(session, session.id, format, new NullSink());
    const seconds = (performance.now() - start) / 1000;
    const mb = result.bytes / 1024 / 1024;
    console.log(
      `export ${format.padEnd(4)} ${mb.toFixed(1).padStart(6)} MB in ${seconds.toFixed(2)} s: ` +
        `${(mb / seconds).toFixed(1)} MB/s (${(mb / Math.max(0.001, seconds - generation)).toFixed(1)} MB/s net of generation), ${result.chunks} chunks`,
    );
  }
});
