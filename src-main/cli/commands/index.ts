import type { CliCommand } from '../command';
import { serveCommand } from './serve';
import { sessionsCommand } from './sessions';
import { showCommand } from './show';

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly CliCommand[] = [serveCommand, sessionsCommand, showCommand];
