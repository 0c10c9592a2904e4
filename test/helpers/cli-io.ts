import type { CliIO } from '../../src-main/cli/command';

/** Captured CLI output plus a way to simulate Ctrl+C. */
export function captureIo(env: NodeJS.ProcessEnv = {}): CliIO & {
  stdout: string[];
  stderr: string[];
  interrupt(): void;
} {
  let interrupt = () => undefined as void;
  const interrupted = new Promise<void>((resolve) => (interrupt = resolve));
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    env,
    interrupted,
    interrupt: () => interrupt(),
    out: (text) => stdout.push(text),
    err: (text) => stderr.push(text),
  };
}
