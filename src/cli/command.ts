/** One `fw` command: what it runs and the usage `fw <command> --help` prints. */
export interface Command {
  readonly run: (argv: string[]) => Promise<number>;
  /** The usage text, starting with `Usage: fw <command> …`. */
  readonly usage: string;
}

/** True when the arguments ask for help (`--help` or `-h` anywhere before a `--`). */
export function asksForHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}
