/**
 * `npm run bench` ends with this: every bench's figures from test-artifacts/bench/results.json
 * in one goal table. With `--reset` (run first) it removes results.json, so the table holds
 * this run only. Run with `node --import jiti/register test/bench/print-results.ts`.
 */
import { rmSync } from 'node:fs';
import { RESULTS_FILE, formatTable, readResults } from './harness';

if (process.argv.includes('--reset')) {
  rmSync(RESULTS_FILE, { force: true });
} else {
  const results = Object.values(readResults());
  if (results.length === 0) console.log(`No bench results in ${RESULTS_FILE}.`);
  console.log('\n=== Every figure of this bench run, beside its baseline and goal ===');
  for (const result of results) console.log(formatTable(`${result.title} [${result.bench}]`, result.figures));
  console.log(`\n(${results.length} benches; JSON in ${RESULTS_FILE})`);
}
