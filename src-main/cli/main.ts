import { version } from '../version';
import { EXIT, UsageError, type CliIO } from './command';
import { COMMANDS } from './commands';
import { normalizeNegativeValues } from './args';

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    `fleetscope ${version}: build fleets of LLM agents, run them, and watch them talk.`,
    '',
    'Usage: fleetscope <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    "Run `fleetscope <command> --help` for a command's options.",
  ].join('\n');
}

/** Runs the CLI with `argv` (without node and the script) and returns the exit code. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = normalizeNegativeValues(argv);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(helpText());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(version);
    return EXIT.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${helpText()}`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`${command.summary}\n\nUsage: ${command.usage}`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const isUsage =
      error instanceof UsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    if (isUsage) {
      io.err(`${(error as Error).message}\nUsage: ${command.usage}`);
      return EXIT.usage;
    }
    io.err(`fleetscope ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failure;
  }
}
