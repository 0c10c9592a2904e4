// Imports one file into a store with the built app (`fleetscope/api`, out/main/api.js), as the
// app does it (parsed on the bundled parsing thread, written on its writing thread), and prints
// {"ms", "sessionId", "messageCount"} as JSON. Usage: node import-child.mjs <file> <dataDir>.
// A child process so the figure is the built app's, not the TypeScript sources' (whose parsing
// thread would first compile itself).
import { openStore } from '../../out/main/api.js';

const [file, dataDir] = process.argv.slice(2);
if (!file || !dataDir) {
  console.error('usage: node import-child.mjs <file> <dataDir>');
  process.exit(2);
}
const store = openStore(dataDir, {});
const started = performance.now();
const result = await store.app.importFile(file);
const ms = performance.now() - started;
await store.close();
process.stdout.write(
  `${JSON.stringify({ ms, sessionId: result.sessionId, messageCount: result.messageCount })}\n`,
);
