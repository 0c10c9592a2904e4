import type { IncomingMessage } from 'node:http';
import type { RefusalReason } from './security';

/** A page that loads nothing and runs nothing: inline styles only. */
export const REFUSAL_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/**
 * Whether the request is a person's browser opening the address (a page navigation), which gets
 * an HTML explanation instead of a one-line status. Fetches, scripts and tools get plain text.
 */
export function isPageNavigation(request: IncomingMessage): boolean {
  const mode = request.headers['sec-fetch-mode'];
  if (mode !== undefined) return mode === 'navigate';
  return (request.headers.accept ?? '').includes('text/html');
}

function what(reason: RefusalReason, port: number): { title: string; lead: string } {
  switch (reason) {
    case 'Missing token':
      return {
        title: 'Open Fleetscope with the link it printed',
        lead: `This address only opens with the link <code>fleetscope serve</code> printed when it started, which carries this launch's token: <code>http://127.0.0.1:${port}/?token=…</code>.`,
      };
    case 'Wrong token':
      return {
        title: 'This link is from another launch',
        lead: 'The token in this link or in this browser is not the current one. The host was probably restarted: every launch makes a new token and prints a new link.',
      };
    case 'Host not allowed':
      return {
        title: 'Open Fleetscope at 127.0.0.1',
        lead: `Fleetscope only answers at <code>127.0.0.1:${port}</code> or <code>localhost:${port}</code>, not under another name.`,
      };
    case 'Origin not allowed':
      return {
        title: 'Another site tried to use Fleetscope',
        lead: 'This request came from a page that is not Fleetscope, so it was refused.',
      };
  }
}

/** The HTML page for a refused page navigation. It names no token and reflects nothing from the request. */
export function refusalPage(status: 401 | 403, reason: RefusalReason, port: number): string {
  const { title, lead } = what(reason, port);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} · Fleetscope</title>
<style>
  body { font: 15px/1.55 system-ui, sans-serif; max-width: 620px; margin: 10vh auto; padding: 0 20px; color: #1b1d22; background: #fff; }
  h1 { font-size: 22px; margin: 0 0 12px; }
  code { background: #eef0f3; padding: 1px 5px; border-radius: 4px; overflow-wrap: anywhere; }
  ol { padding-left: 22px; }
  li + li { margin-top: 6px; }
  .status { color: #5d6270; font-size: 13px; }
  @media (prefers-color-scheme: dark) {
    body { color: #e6e8ee; background: #1b1d22; }
    code { background: #262932; }
    .status { color: #9aa0ad; }
  }
</style>
</head>
<body>
<h1>${title}</h1>
<p>${lead}</p>
<ol>
  <li>Find the terminal where <code>npx fleetscope serve</code> (or <code>npm run serve</code>) is running.</li>
  <li>Open the link on its line <code>Fleetscope is running at http://127.0.0.1:…/?token=…</code>, copied whole with its token.</li>
  <li>No terminal any more? Start it again with <code>npx fleetscope serve</code> and open the new link it prints.</li>
</ol>
<p>The token keeps other web pages and programs on this computer from reading or running your sessions.</p>
<p class="status">${status} · ${reason}</p>
</body>
</html>
`;
}
