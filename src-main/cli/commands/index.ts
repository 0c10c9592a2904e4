import type { CliCommand } from '../command';
import { serveCommand } from './serve';

/** Every CLI command, in the order `--help` lists them. */
export const COMMANDS: readonly CliCommand[] = [serveCommand];
