import type { CliCommand } from '../command';
import { serveCommand } from './serve';
import { sessionsCommand } from './sessions';
import { showCommand } from './show';
import { importCommand } from './import';
import { exportCommand } from './export';
import { runCommand } from './run';
import { continueCommand } from './continue';
import { forkCommand } from './fork';
import { compareCommand } from './compare';
import { retentionCommand } from './retention';

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  runCommand,
  continueCommand,
  forkCommand,
  compareCommand,
  sessionsCommand,
  showCommand,
  importCommand,
  exportCommand,
  retentionCommand,
];
