/**
 * Where the parsing thread's code is. From the TypeScript sources (vitest, or the CLI through
 * jiti) this module's own URL ends in .ts and the thread starts from a plain-JS shim that loads
 * the sources; in a build, electron-vite bundles parse-worker on its own (`?modulePath`) and
 * returns the bundled file's path.
 */
export async function parseWorkerEntry(): Promise<URL | string> {
  if (import.meta.url.endsWith('.ts')) return new URL('./parse-worker.source.mjs', import.meta.url);
  const bundled = await import('./parse-worker?modulePath');
  return bundled.default;
}

/** Where the writing thread's code is (see parseWorkerEntry). */
export async function writeWorkerEntry(): Promise<URL | string> {
  if (import.meta.url.endsWith('.ts')) return new URL('./write-worker.source.mjs', import.meta.url);
  const bundled = await import('./write-worker?modulePath');
  return bundled.default;
}
