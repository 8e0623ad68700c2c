import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.js';

/** node:util parseArgs with usage errors that main() reports with the usage text. */
export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
