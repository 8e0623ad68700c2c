import { availableParallelism } from 'node:os';
import { UsageError } from './usage-error.js';

/** The most worker processes `fw serve` starts; far beyond any core count, it only catches typos. */
export const MAX_WORKERS = 1024;

/**
 * The number of serving processes `--workers` / `FW_WORKERS` asks for: a whole number from 1 to
 * MAX_WORKERS, or `auto` for one per core. Missing means 1 (serve in this process).
 */
export function parseWorkerCount(text: string | undefined, cores: () => number = availableParallelism): number {
  if (text === undefined) return 1;
  const value = text.trim();
  if (value.toLowerCase() === 'auto') return Math.max(1, Math.min(cores(), MAX_WORKERS));
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_WORKERS) {
    throw new UsageError(`--workers must be a whole number from 1 to ${MAX_WORKERS}, or "auto" for one per core; got "${text}"`);
  }
  return n;
}
