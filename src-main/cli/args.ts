/**
 * `--max-messages -5` would otherwise be read as an unknown option "-5" by node's parseArgs, so
 * the person would see the parser's words instead of ours: a negative number after a long option
 * is joined to it (`--max-messages=-5`), and the command's own check then explains what is allowed.
 */
export function normalizeNegativeValues(args: readonly string[]): string[] {
  const result: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if (/^--[a-z][a-z-]*$/.test(arg) && next !== undefined && /^-\d/.test(next)) {
      result.push(`${arg}=${next}`);
      i++;
    } else {
      result.push(arg);
    }
  }
  return result;
}
