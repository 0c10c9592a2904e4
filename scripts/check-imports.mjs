// `npm run lint`'s second step: dependency-cruiser with the rules in .dependency-cruiser.cjs (no
// import cycles, the layer fences) over src-main, src-shared and src-renderer. Called through the
// library rather than the `depcruise` binary, which refuses to start on Node 20 (package.json
// engines allow >=20.18); the rules and results are the same.
//
//   node scripts/check-imports.mjs [folder ...]   exit 0 when clean, 1 with the violations listed
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CHECKED_FOLDERS = ['src-main', 'src-shared', 'src-renderer'];

/**
 * The rule violations among `folders` (paths relative to `baseDir`), as dependency-cruiser's text
 * report; `errors` is 0 when there are none. `baseDir` defaults to the repository; a test points
 * it at a temporary copy of the layout. The rules and the tsconfig are always the repository's.
 */
export async function checkImports({ folders = CHECKED_FOLDERS, baseDir = root } = {}) {
  const options = await extractDepcruiseOptions(join(root, '.dependency-cruiser.cjs'));
  const tsConfig = extractTSConfig(join(root, options.tsConfig.fileName));
  const result = await cruise(
    folders,
    { ...options, baseDir, tsConfig: { fileName: join(root, options.tsConfig.fileName) }, outputType: 'err' },
    undefined,
    { tsConfig },
  );
  return { errors: result.exitCode, report: String(result.output) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folders = process.argv.slice(2);
  const { errors, report } = await checkImports(folders.length ? { folders } : {});
  if (errors > 0) {
    process.stderr.write(report);
    process.exit(1);
  }
  process.stdout.write(report.trim() ? report : 'dependency-cruiser: no violations\n');
}
