import { describe, expect, it } from 'vitest';
import { isTrustedSender } from '../../../src-main/electron/sender-check';
import { frame } from './fake-ipc-main';

const BUILT = 'file:///opt/Fleetscope/resources/app.asar/out/renderer/index.html';
const DEV = 'http://localhost:5173/';

/** Which frames may call the contract: only the live main frame showing our renderer. */
describe('isTrustedSender', () => {
  it.each([
    ['the built renderer', BUILT, BUILT],
    ['the built renderer with a hash route', `${BUILT}#/sessions/abc`, BUILT],
    ['the built renderer with a query', `${BUILT}?session=1`, BUILT],
    ['the dev server', 'http://localhost:5173/', DEV],
    ['a dev server route', 'http://localhost:5173/#/fleets', DEV],
  ])('trusts the main frame of %s', (_name, url, renderer) => {
    expect(isTrustedSender(frame(url), renderer)).toBe(true);
  });

  it.each([
    ['null (the frame is gone)', null],
    ['undefined', undefined],
    ['a subframe (iframe) showing our own page', frame(BUILT, { parent: frame(BUILT) })],
    ['a detached frame', frame(BUILT, { detached: true })],
    ['a destroyed frame', frame(BUILT, { destroyed: true })],
    ['a window navigated to a web page', frame('https://evil.example/')],
    ['a window navigated to another local file', frame('file:///tmp/evil.html')],
    [
      'a sibling file next to ours',
      frame('file:///opt/Fleetscope/resources/app.asar/out/renderer/other.html'),
    ],
    [
      'a file on another host (UNC)',
      frame('file://evil-host/opt/Fleetscope/resources/app.asar/out/renderer/index.html'),
    ],
    ['about:blank', frame('about:blank')],
    ['a data: URL', frame('data:text/html,<script>1</script>')],
    ['a javascript: URL', frame('javascript:alert(1)')],
    ['an empty URL (mid-navigation)', frame('')],
    ['an unparsable URL', frame('not a url')],
  ])('refuses %s', (_name, sender) => {
    expect(isTrustedSender(sender, BUILT)).toBe(false);
  });

  it.each([
    ['another port', 'http://localhost:5174/'],
    ['another host', 'http://127.0.0.1:5173/'],
    ['https instead of http', 'https://localhost:5173/'],
    ['a look-alike host', 'http://localhost.evil.example:5173/'],
    ['credentials smuggled before the host', 'http://localhost:5173@evil.example/'],
    ['a file URL', 'file:///tmp/index.html'],
  ])('refuses %s when the renderer is the dev server', (_name, url) => {
    expect(isTrustedSender(frame(url), DEV)).toBe(false);
  });

  it('refuses everything when the renderer URL itself is not a URL', () => {
    expect(isTrustedSender(frame(BUILT), '')).toBe(false);
    expect(isTrustedSender(frame('x'), 'x')).toBe(false);
  });
});
