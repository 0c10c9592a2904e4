import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL_NAMES } from '@shared/contract';
import { createApp, type FleetscopeApp } from '../../../src-main/app';
import {
  registerFolderPicker,
  registerIpcHandlers,
  UNTRUSTED_SENDER_RESULT,
} from '../../../src-main/electron/ipc';
import { PICK_FOLDER_CHANNEL } from '../../../src-main/electron/ipc-names';
import { makeTempDir } from '../../helpers/temp-dir';
import { FakeIpcMain, frame } from './fake-ipc-main';

const RENDERER = 'file:///opt/Fleetscope/resources/app.asar/out/renderer/index.html';

/** The IPC binding against a real app and a fake ipcMain: registration, the sender check, unbinding. */
describe('registerIpcHandlers', () => {
  let temp: ReturnType<typeof makeTempDir>;
  let app: FleetscopeApp;
  let ipcMain: FakeIpcMain;
  let unregister: () => void;

  beforeEach(() => {
    temp = makeTempDir();
    app = createApp({ dataDir: temp.dir, surface: 'desktop', pingIntervalMs: 0, seedSamples: false });
    ipcMain = new FakeIpcMain();
    unregister = registerIpcHandlers(app, ipcMain, RENDERER);
  });
  afterEach(async () => {
    unregister();
    await app.close();
    temp.remove();
  });

  it('registers exactly one handler per contract channel', () => {
    expect([...ipcMain.handlers.keys()].sort()).toEqual([...CHANNEL_NAMES].sort());
    expect(CHANNEL_NAMES.length).toBeGreaterThan(0);
  });

  it("dispatches a call from our renderer's main frame", async () => {
    const result = await ipcMain.invoke('app.info', frame(RENDERER), {});
    expect(result).toMatchObject({ ok: true, value: { name: 'Fleetscope', surface: 'desktop' } });
  });

  it('passes the payload through the contract (bad input is refused by the dispatcher)', async () => {
    const result = await ipcMain.invoke('settings.set', frame(RENDERER), { theme: 42 });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid-input' } });
  });

  it.each([
    ['no frame', null],
    ['a subframe', frame(RENDERER, { parent: {} })],
    ['a detached frame', frame(RENDERER, { detached: true })],
    ['a destroyed frame', frame(RENDERER, { destroyed: true })],
    ['a window navigated elsewhere', frame('https://evil.example/index.html')],
    ['another local file', frame('file:///tmp/evil.html')],
  ])('refuses %s with a forbidden result and changes nothing', async (_name, sender) => {
    const before = await ipcMain.invoke('settings.get', frame(RENDERER), {});
    const refused = await ipcMain.invoke('settings.set', sender, { theme: 'dark' });
    expect(refused).toEqual(UNTRUSTED_SENDER_RESULT);
    expect(refused).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await ipcMain.invoke('settings.get', frame(RENDERER), {})).toEqual(before);
  });

  it('unregister removes every handler, so the contract can be bound again', () => {
    unregister();
    expect(ipcMain.handlers.size).toBe(0);
    unregister = registerIpcHandlers(app, ipcMain, RENDERER);
    expect(ipcMain.handlers.size).toBe(CHANNEL_NAMES.length);
  });
});

/** The desktop's folder picker: a dialog for our renderer's main frame only. */
describe('registerFolderPicker', () => {
  it('answers our renderer with the folder picked, or null when cancelled', async () => {
    const ipcMain = new FakeIpcMain();
    const answers: Array<string | null> = ['/home/ana/notes', null];
    let shown = 0;
    const unregister = registerFolderPicker(ipcMain, RENDERER, async () => {
      shown += 1;
      return answers.shift() ?? null;
    });
    expect(await ipcMain.invoke(PICK_FOLDER_CHANNEL, frame(RENDERER), null)).toBe('/home/ana/notes');
    expect(await ipcMain.invoke(PICK_FOLDER_CHANNEL, frame(RENDERER), null)).toBeNull();
    expect(shown).toBe(2);
    unregister();
    expect(ipcMain.handlers.has(PICK_FOLDER_CHANNEL)).toBe(false);
  });

  it('shows no dialog to a frame that is not our renderer', async () => {
    const ipcMain = new FakeIpcMain();
    let shown = 0;
    registerFolderPicker(ipcMain, RENDERER, async () => {
      shown += 1;
      return '/etc';
    });
    expect(await ipcMain.invoke(PICK_FOLDER_CHANNEL, frame('https://evil.example/'), null)).toBeNull();
    expect(await ipcMain.invoke(PICK_FOLDER_CHANNEL, null, null)).toBeNull();
    expect(shown).toBe(0);
  });
});
