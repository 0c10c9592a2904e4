import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { makeTempDir } from './temp-dir';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'e2e');

/** Flags for Debian's Chromium on a machine with no network but loopback and no GPU. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Builds the renderer and CLI once if `npm run build` has not. */
export function ensureBuilt(): void {
  if (existsSync(join('out', 'main', 'cli.js')) && existsSync(join('out', 'renderer', 'index.html'))) return;
  const result = spawnSync(process.execPath, ['node_modules/electron-vite/bin/electron-vite.js', 'build'], {
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('electron-vite build failed');
}

export interface HostProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `fleetscope serve` from the build as a real child process and waits for its URL line. */
export function spawnHost(
  dataDir: string,
  options: { port?: number; token?: string } = {},
): Promise<HostProcess> {
  const args = ['out/main/cli.js', 'serve', '--data-dir', dataDir, '--port', String(options.port ?? 0)];
  const env = { ...process.env, ...(options.token ? { FLEETSCOPE_TOKEN: options.token } : {}) };
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`host did not start: ${stderr}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`host exited with ${code}: ${stderr}`)));
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /Fleetscope is running at (http:\/\/127\.0\.0\.1:(\d+)\/\?token=\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({
        url: match[1]!,
        port: Number(match[2]),
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** A headless Chromium with a fresh profile. `close` removes the profile too. */
export async function launchBrowser(
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = makeTempDir('fleetscope-chromium-');
  const context = await chromium.launchPersistentContext(profile.dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  return {
    context,
    async close() {
      await context.close();
      profile.remove();
    },
  };
}
