import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type RunningHost } from '../../helpers/web-host';

interface Answer {
  status: number;
  body: string;
  type: string;
  csp: string;
}

/** A raw HTTP request with exactly these headers. */
function send(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          type: String(res.headers['content-type']),
          csp: String(res.headers['content-security-policy'] ?? ''),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** What Chromium sends when a person types the address or follows a link. */
const NAVIGATION = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
};

describe('the web host, opened without the launch token', () => {
  let running: RunningHost;
  let port: number;

  beforeAll(async () => {
    running = await startTestHost();
    port = running.host.port;
  });
  afterAll(() => running.stop());

  it('answers a page navigation without a token with 401 and a page saying how to open the printed link', async () => {
    const answer = await send(port, '/', NAVIGATION);
    expect(answer.status).toBe(401);
    expect(answer.type).toBe('text/html; charset=utf-8');
    expect(answer.body).toContain('Open Fleetscope with the link it printed');
    expect(answer.body).toContain('npx fleetscope serve');
    expect(answer.body).toContain(`http://127.0.0.1:${port}/?token=`);
    // The page runs nothing and loads nothing.
    expect(answer.csp).toContain("default-src 'none'");
    expect(answer.body).not.toMatch(/<script|<img|<link|src=/i);
  });

  it('answers a navigation with a stale token with 403 and says the host was restarted, never showing a token', async () => {
    const answer = await send(port, '/?token=from-an-old-launch', NAVIGATION);
    expect(answer.status).toBe(403);
    expect(answer.type).toContain('text/html');
    expect(answer.body).toContain('another launch');
    expect(answer.body).not.toContain('from-an-old-launch');
    expect(answer.body).not.toContain(running.host.token);
  });

  it('reflects nothing of the request into the page', async () => {
    const answer = await send(port, '/%3Cscript%3Ealert(1)%3C/script%3E?x=<b>', {
      ...NAVIGATION,
      cookie: `fleetscope_token_${port}=<img src=x>`,
    });
    expect(answer.status).toBe(403);
    expect(answer.body).not.toContain('alert(1)');
    expect(answer.body).not.toContain('<img');
  });

  it('explains a foreign host name too, with the status code it had', async () => {
    const answer = await send(port, '/', { ...NAVIGATION, host: `evil.example:${port}` });
    expect(answer.status).toBe(403);
    expect(answer.body).toContain(`127.0.0.1:${port}`);
  });

  it('keeps plain text for requests that are not page navigations (scripts, fetches, tools)', async () => {
    const script = await send(port, '/assets/app.js', { 'sec-fetch-mode': 'no-cors', accept: '*/*' });
    expect(script.status).toBe(401);
    expect(script.type).toContain('text/plain');
    expect(script.body).toBe('401 Missing token\n');
    const tool = await send(port, '/', {});
    expect(tool.status).toBe(401);
    expect(tool.type).toContain('text/plain');
    // Without Fetch Metadata, an Accept that asks for HTML is a browser's navigation.
    const older = await send(port, '/', { accept: 'text/html' });
    expect(older.type).toContain('text/html');
  });

  it('still serves the app once the token is given', async () => {
    const answer = await send(port, `/?token=${running.host.token}`, NAVIGATION);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('stand-in');
  });
});
