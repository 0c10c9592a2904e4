import { spawn } from 'node:child_process';

/** The program that opens a URL in the user's browser here, or null where there is no display. */
export function browserOpener(
  url: string,
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
): { command: string; args: string[] } | null {
  // The convention other tools follow: BROWSER names the program to open links with.
  if (env.BROWSER) return { command: env.BROWSER, args: [url] };
  switch (platform) {
    case 'darwin':
      return { command: 'open', args: [url] };
    case 'win32':
      // Not `cmd /c start`: cmd would read the `&` of a query string as a command separator.
      return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
    default:
      // Linux and the BSDs: a graphical session sets one of these; over ssh or in CI neither is set.
      return env.DISPLAY || env.WAYLAND_DISPLAY ? { command: 'xdg-open', args: [url] } : null;
  }
}

/**
 * Opens `url` in the browser without waiting for it; false when there is no display (the caller
 * then says so). A missing opener program is not an error: the URL is printed anyway.
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv, platform = process.platform): boolean {
  const opener = browserOpener(url, platform, env);
  if (!opener) return false;
  const child = spawn(opener.command, opener.args, { env, stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
  return true;
}
