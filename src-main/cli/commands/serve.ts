import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createApp, defaultDataDir } from '../../app';
import { startWebHost } from '../../server/web-host';
import { UsageError, type CliCommand } from '../command';
import { openInBrowser } from '../open-browser';

/** The built renderer sits beside the built CLI: out/main/cli.js -> out/renderer. */
export function builtRendererDir(): string {
  return fileURLToPath(new URL('../renderer', import.meta.url));
}

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Run the app in your browser (a loopback web host with a per-launch token)',
  usage:
    'fleetscope serve [--port N] [--open] [--data-dir DIR] [--renderer-dir DIR]\n\n' +
    '  --open  also opens the page in your browser where there is a display (npm start does)',
  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'renderer-dir': { type: 'string' },
        open: { type: 'boolean', default: false },
      },
      strict: true,
    });
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`--port must be a whole number from 0 to 65535, got "${values.port}"`);
    }
    const rendererDir = values['renderer-dir'] ?? builtRendererDir();
    if (!existsSync(join(rendererDir, 'index.html'))) {
      io.err(`No built renderer in ${rendererDir}. Run \`npm run build\` first.`);
      return 1;
    }
    const dataDir = values['data-dir'] ?? defaultDataDir(io.env);
    const app = createApp({ dataDir, surface: 'browser' });
    // A damaged store (and what came back from it), a read-only folder: the page shows them too.
    for (const notice of app.info.notices ?? []) io.err(notice);
    // FLEETSCOPE_TOKEN pins the token, so an open page can reconnect after the host restarts.
    const token = io.env.FLEETSCOPE_TOKEN || undefined;
    await app.ready;
    const host = await startWebHost({ app, rendererDir, port, token });
    io.out(`Fleetscope is running at ${host.url}`);
    if (values.open) {
      io.out(
        openInBrowser(host.url, io.env)
          ? 'Opening it in your browser.'
          : 'No display here: open the address above in a browser.',
      );
    }
    io.out(`Data folder: ${dataDir}. Press Ctrl+C to stop.`);
    // The two lines to paste before an instrumented program (see `otlpEnvLines`).
    const receiver = app.traces.status();
    if (receiver.listening) {
      io.out('Watch your own OpenTelemetry-instrumented agents: run them with these two variables set:');
      for (const line of receiver.envLines) io.out(line);
    } else {
      io.out('The OpenTelemetry trace receiver is turned off (Settings).');
    }
    await io.interrupted;
    await host.close();
    await app.close();
    return 0;
  },
};
