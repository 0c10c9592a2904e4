import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeStorage } from 'electron';
import type { KeyVault } from '../app';

/**
 * API keys encrypted with Electron safeStorage (Keychain on macOS, DPAPI on Windows, the Secret
 * Service keyring or KWallet on Linux), kept as base64 ciphertext in `keys.json` in the data
 * folder. Only main reads them; the renderer learns only whether a key is set.
 * Call after `app.whenReady()`: safeStorage is not usable before.
 */
export function createSafeStorageKeyVault(
  dataDir: string,
  /** Told when keys.json cannot be read or a key cannot be decrypted (never the key itself). */
  onProblem: (message: string, error: unknown) => void = () => undefined,
): KeyVault {
  const file = join(dataDir, 'keys.json');
  const available = safeStorage.isEncryptionAvailable();
  const backend = process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null;
  const weak = backend === 'basic_text';
  const message = !available
    ? 'This system offers no encryption for stored secrets, so keys cannot be saved here. Set them as environment variables (named in each provider) before starting Fleetscope.'
    : weak
      ? 'No keyring was found (GNOME Keyring, KWallet or another Secret Service). Keys are saved only obfuscated with a fixed password: anyone who can read your data folder can recover them. Install and unlock a keyring, or use environment variables instead.'
      : `Keys are encrypted with the system's secure storage${backend ? ` (${backend})` : ''} and never shown again.`;

  const read = (): Record<string, string> => {
    if (!existsSync(file)) return {};
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
    } catch (error) {
      onProblem('The stored keys file could not be read; keys are treated as not set', error);
      return {};
    }
  };
  const write = (entries: Record<string, string>) => {
    const temporary = `${file}.tmp`;
    writeFileSync(temporary, JSON.stringify(entries), { mode: 0o600 });
    renameSync(temporary, file);
  };

  return {
    available,
    weak,
    message,
    has: (providerId) => typeof read()[providerId] === 'string',
    get(providerId) {
      const cipher = read()[providerId];
      if (!available || cipher === undefined) return undefined;
      try {
        return safeStorage.decryptString(Buffer.from(cipher, 'base64'));
      } catch (error) {
        onProblem(`The stored key of provider ${providerId} could not be decrypted`, error);
        return undefined;
      }
    },
    set(providerId, key) {
      if (!available) throw new Error('secure storage is not available');
      write({ ...read(), [providerId]: safeStorage.encryptString(key).toString('base64') });
    },
    delete(providerId) {
      const entries = read();
      delete entries[providerId];
      write(entries);
    },
  };
}
