import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TOKEN_PARAM } from '@shared/contract';

/**
 * The token cookie's name. Cookies are shared by every port of a host, so the name carries the
 * port: other local servers never receive this launch's token under a name they would read.
 */
export function tokenCookie(port: number): string {
  return `fleetscope_token_${port}`;
}

/** Content-Security-Policy for the renderer when served by the web host. */
export function contentSecurityPolicy(port: number): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const BASE_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function cookieToken(request: IncomingMessage, port: number): string | null {
  const header = request.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === tokenCookie(port)) return rest.join('=');
  }
  return null;
}

/** Why a request was refused. */
export type RefusalReason = 'Missing token' | 'Wrong token' | 'Host not allowed' | 'Origin not allowed';

export type AccessVerdict =
  { ok: true; viaQuery: boolean } | { ok: false; status: 401 | 403; reason: RefusalReason };

/**
 * Decides whether a request may proceed: the Host must be this loopback host (no DNS rebinding),
 * an Origin, when sent, must be ours, and the launch token must come in the query or the cookie.
 */
export function checkAccess(request: IncomingMessage, url: URL, port: number, token: string): AccessVerdict {
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowedHosts.includes(request.headers.host ?? '')) {
    return { ok: false, status: 403, reason: 'Host not allowed' };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !allowedHosts.some((host) => origin === `http://${host}`)) {
    return { ok: false, status: 403, reason: 'Origin not allowed' };
  }
  const fromQuery = url.searchParams.get(TOKEN_PARAM);
  const presented = fromQuery ?? cookieToken(request, port);
  if (presented === null || presented === '') return { ok: false, status: 401, reason: 'Missing token' };
  if (!safeEqual(presented, token)) return { ok: false, status: 403, reason: 'Wrong token' };
  return { ok: true, viaQuery: fromQuery !== null };
}
