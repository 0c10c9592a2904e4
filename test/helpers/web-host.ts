import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type FleetscopeApp } from '../../src-main/app';
import { startWebHost, type WebHost } from '../../src-main/server/web-host';
import { makeTempDir } from './temp-dir';

export interface RunningHost {
  app: FleetscopeApp;
  host: WebHost;
  dataDir: string;
  rendererDir: string;
  stop(): Promise<void>;
}

/**
 * A real web host on a free loopback port with a temp data folder. Without `rendererDir` it serves
 * a tiny stand-in renderer (index.html plus one asset) written to the temp folder.
 */
export async function startTestHost(
  options: { rendererDir?: string; port?: number } = {},
): Promise<RunningHost> {
  const temp = makeTempDir();
  const dataDir = join(temp.dir, 'data');
  let rendererDir = options.rendererDir;
  if (!rendererDir) {
    rendererDir = join(temp.dir, 'renderer');
    mkdirSync(join(rendererDir, 'assets'), { recursive: true });
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>stand-in</title>');
    writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("asset")');
    writeFileSync(join(temp.dir, 'secret.txt'), 'outside the renderer');
  }
  const app = createApp({ dataDir, surface: 'browser', pingIntervalMs: 0, seedSamples: false });
  const host = await startWebHost({ app, rendererDir, port: options.port });
  return {
    app,
    host,
    dataDir,
    rendererDir,
    async stop() {
      await host.close();
      await app.close();
      temp.remove();
    },
  };
}
