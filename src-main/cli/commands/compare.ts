import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { AppError, toAppError, type FleetscopeApp } from '../../app';
import { EXIT, UsageError, type CliCommand, type CliIO } from '../command';
import { dataDirFrom, hasStore, withApp } from '../open-app';

const USAGE = 'fleetscope compare A B [--format md|html|json] [-o FILE] [--data-dir DIR]';
const FORMATS = ['md', 'html', 'json'] as const;
type CompareFormat = (typeof FORMATS)[number];
/** Pairs asked for at a time for the JSON form. */
const PAGE = 200;

/**
 * The JSON form: the frame (sides, common prefix, divergence, per-agent figures, edges) and every
 * aligned pair, written a page at a time so two long sessions never become one huge string.
 */
async function writeJson(app: FleetscopeApp, a: string, b: string, write: (text: string) => Promise<void>) {
  const first = await app.call('branches.compare', { a, b, offset: 0, limit: PAGE });
  const { pairs: firstPairs, offset: _offset, hasMore: _more, ...frame } = first;
  const head = JSON.stringify(frame);
  await write(`${head.slice(0, -1)},"pairs":[`);
  let separator = '\n';
  let pairs = firstPairs;
  let offset = 0;
  for (;;) {
    for (const pair of pairs) {
      await write(separator + JSON.stringify(pair));
      separator = ',\n';
    }
    offset += pairs.length;
    if (offset >= first.totalPairs || pairs.length === 0) break;
    pairs = (await app.call('branches.compare', { a, b, offset, limit: PAGE })).pairs;
  }
  await write('\n]}\n');
}

async function writeTo(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

export const compareCommand: CliCommand = {
  name: 'compare',
  summary: 'Compare two sessions (usually two branches): Markdown by default, or HTML or JSON',
  usage: USAGE,
  async run(args, io: CliIO) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string', default: 'md' },
        output: { type: 'string', short: 'o' },
        'data-dir': { type: 'string' },
      },
    });
    if (positionals.length !== 2)
      throw new UsageError('Give the two sessions to compare (ids or unique prefixes).');
    const format = values.format as CompareFormat;
    if (!FORMATS.includes(format))
      throw new UsageError(`--format is md, html or json, got "${values.format}".`);
    const [a, b] = positionals as [string, string];
    const dataDir = dataDirFrom(values['data-dir'], io);
    if (!hasStore(dataDir)) {
      io.err(`No session with id "${a}" (no store in ${dataDir}).`);
      return EXIT.failure;
    }
    return withApp(dataDir, io, async (app) => {
      try {
        const aId = app.store.resolveSessionId(a);
        const bId = app.store.resolveSessionId(b);
        if (format === 'json') {
          const out =
            values.output !== undefined ? createWriteStream(values.output) : (io.rawOut ?? process.stdout);
          await writeJson(app, aId, bId, (text) => writeTo(out, text));
          if (values.output !== undefined) {
            out.end();
            await once(out, 'close');
          }
        } else {
          const result = await app.branches.exportCompare(
            aId,
            bId,
            format,
            values.output ?? io.rawOut ?? process.stdout,
          );
          if (values.output !== undefined) io.err(`Wrote ${values.output} (${result.bytes} bytes).`);
        }
        return EXIT.ok;
      } catch (error) {
        const refused = toAppError(error);
        if (refused instanceof AppError) {
          io.err(refused.message);
          return refused.code === 'not-found' ? EXIT.failure : EXIT.usage;
        }
        throw error;
      }
    });
  },
};
