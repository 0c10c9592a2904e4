import { describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { normalizeNegativeValues } from '../../../src-main/cli/args';
import { captureIo } from '../../helpers/cli-io';

describe('command-line arguments', () => {
  it("a negative number after a flag is that flag's value, not an unknown option", () => {
    expect(normalizeNegativeValues(['run', 'f.json', '--max-messages', '-5'])).toEqual([
      'run',
      'f.json',
      '--max-messages=-5',
    ]);
    expect(normalizeNegativeValues(['--task', 'x', '-h'])).toEqual(['--task', 'x', '-h']);
  });

  it("--max-messages -5 gets the project's own message and exit code 2", async () => {
    const io = captureIo();
    const code = await runCli(
      ['run', 'resources/fleets/scripted/debate.json', '--task', 'x', '--max-messages', '-5'],
      io,
    );
    expect(code).toBe(2);
    expect(io.stderr.join('\n')).toContain('--max-messages must be a whole number above 0, got "-5"');
    expect(io.stderr.join('\n')).not.toMatch(/Unknown option|ERR_PARSE_ARGS/);
  });
});
