import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../../src-main/app';
import { createLogger, LOG_FILE, logLevelFrom } from '../../../src-main/app/composition/logger';
import { makeTempDir } from '../../helpers/temp-dir';

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('the injected logger', () => {
  const temps: Array<{ remove(): void }> = [];
  afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));
  const tempDir = () => {
    const temp = makeTempDir('fleetscope-log-');
    temps.push(temp);
    return temp.dir;
  };

  it('writes JSON lines to the data folder, with key fields redacted and secret values masked', async () => {
    const dir = tempDir();
    const secret = 'sk-live-0123456789abcdef';
    const logger = createLogger({ dataDir: dir, level: 'info', secrets: () => [secret] });
    logger.error(`the server echoed ${secret} back`, { apiKey: 'sk-other-value-123456', status: 500 });
    logger.child({ component: 'web-host' }).warn('slow client', { bytes: 10 });
    logger.debug('not at info level');
    logger.flush();
    await settle();
    const text = readFileSync(join(dir, LOG_FILE), 'utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('sk-other-value-123456');
    expect(lines[0]).toMatchObject({
      msg: 'the server echoed [secret] back',
      apiKey: '[secret]',
      status: 500,
    });
    expect(lines[1]).toMatchObject({ component: 'web-host', msg: 'slow client' });
  });

  it('FLEETSCOPE_LOG chooses the level (debug turns on detail; unknown values mean info)', () => {
    expect(logLevelFrom({ FLEETSCOPE_LOG: 'debug' })).toBe('debug');
    expect(logLevelFrom({ FLEETSCOPE_LOG: 'ERROR' })).toBe('error');
    expect(logLevelFrom({ FLEETSCOPE_LOG: 'chatty' })).toBe('info');
    expect(logLevelFrom({})).toBe('info');
  });

  it('rotates a log file past its size when a process opens it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOG_FILE), 'x'.repeat(6 * 1024 * 1024));
    const logger = createLogger({ dataDir: dir, level: 'info' });
    logger.flush();
    expect(existsSync(join(dir, `${LOG_FILE}.1`))).toBe(true);
    expect(readFileSync(join(dir, LOG_FILE), 'utf8').length).toBeLessThan(1024);
  });

  it('the app logs through it with the keys of its providers masked', async () => {
    const dir = tempDir();
    const key = 'sk-app-key-abcdefghijkl';
    const app = createApp({
      dataDir: dir,
      surface: 'cli',
      seedSamples: false,
      pingIntervalMs: 0,
      env: { OPENAI_API_KEY: key, FLEETSCOPE_LOG: 'debug' },
    });
    app.logger.warn(`a reply contained ${key}`);
    await app.close();
    await settle();
    const text = readFileSync(join(dir, LOG_FILE), 'utf8');
    expect(text).toContain('Opened the store');
    expect(text).toContain('a reply contained [secret]');
    expect(text).not.toContain(key);
  });
});
