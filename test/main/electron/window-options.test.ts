import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  externalLinkTarget,
  isAllowedNavigation,
  isOnScreen,
  rendererLocation,
  secureWebPreferences,
} from '../../../src-main/electron/window-options';

/** The window factory's security settings and rules (docs/ARCHITECTURE.md section 8), as pure values. */
describe('secureWebPreferences', () => {
  const preferences = secureWebPreferences('/app/out/preload/index.cjs');

  it('isolates and sandboxes the renderer, with no Node anywhere', () => {
    expect(preferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
    });
  });

  it('keeps web security on, with no webview, no insecure content and no experimental features', () => {
    expect(preferences).toMatchObject({
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      enableBlinkFeatures: '',
      navigateOnDragDrop: false,
    });
  });

  it('sets nothing that loosens security', () => {
    const allowed = new Set([
      'preload',
      'contextIsolation',
      'sandbox',
      'nodeIntegration',
      'nodeIntegrationInWorker',
      'nodeIntegrationInSubFrames',
      'webSecurity',
      'allowRunningInsecureContent',
      'webviewTag',
      'experimentalFeatures',
      'enableBlinkFeatures',
      'navigateOnDragDrop',
      'safeDialogs',
      'spellcheck',
    ]);
    expect(Object.keys(preferences).filter((key) => !allowed.has(key))).toEqual([]);
  });

  it('returns a fresh object each time, so one window cannot loosen another', () => {
    const first = secureWebPreferences('/a');
    first.sandbox = false;
    expect(secureWebPreferences('/a').sandbox).toBe(true);
  });
});

describe('rendererLocation', () => {
  const mainDir = join('/opt', 'Fleetscope', 'out', 'main');
  const built = pathToFileURL(join('/opt', 'Fleetscope', 'out', 'renderer', 'index.html')).href;

  it('loads the built index.html next to the main bundle', () => {
    expect(rendererLocation({ isPackaged: true, devServerUrl: undefined, mainDir })).toBe(built);
    expect(rendererLocation({ isPackaged: false, devServerUrl: undefined, mainDir })).toBe(built);
  });

  it('uses the dev server only when not packaged', () => {
    const devServerUrl = 'http://localhost:5173/';
    expect(rendererLocation({ isPackaged: false, devServerUrl, mainDir })).toBe(devServerUrl);
    expect(rendererLocation({ isPackaged: true, devServerUrl, mainDir })).toBe(built);
  });

  it('percent-encodes a path with spaces, as the frame URL will show it', () => {
    const url = rendererLocation({
      isPackaged: true,
      devServerUrl: undefined,
      mainDir: '/My Apps/F/out/main',
    });
    expect(url).toBe('file:///My%20Apps/F/out/renderer/index.html');
  });
});

describe('externalLinkTarget', () => {
  it('sends only https links to the browser', () => {
    expect(externalLinkTarget('https://example.com/docs')).toBe('https://example.com/docs');
  });

  it.each(['http://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'x', ''])(
    'drops %s',
    (url) => {
      expect(externalLinkTarget(url)).toBeNull();
    },
  );
});

describe('isAllowedNavigation', () => {
  it('allows only a reload of the current page', () => {
    expect(isAllowedNavigation('file:///a/index.html', 'file:///a/index.html')).toBe(true);
    expect(isAllowedNavigation('file:///a/index.html', 'https://evil.example/')).toBe(false);
    expect(isAllowedNavigation('file:///a/index.html', 'file:///a/other.html')).toBe(false);
  });
});

describe('isOnScreen', () => {
  const display = { x: 0, y: 0, width: 1920, height: 1080 };

  it('restores a position on a display, or just past its top-left edge', () => {
    expect(isOnScreen({ x: 100, y: 100 }, [display])).toBe(true);
    expect(isOnScreen({ x: -40, y: -40 }, [display])).toBe(true);
  });

  it('refuses a position off every display, or no saved position', () => {
    expect(isOnScreen({ x: 3000, y: 100 }, [display])).toBe(false);
    expect(isOnScreen({ x: -100, y: 100 }, [display])).toBe(false);
    expect(isOnScreen({}, [display])).toBe(false);
    expect(isOnScreen({ x: 100, y: 100 }, [])).toBe(false);
  });

  it('finds a second display', () => {
    expect(isOnScreen({ x: 2000, y: 100 }, [display, { x: 1920, y: 0, width: 1280, height: 1024 }])).toBe(
      true,
    );
  });
});
