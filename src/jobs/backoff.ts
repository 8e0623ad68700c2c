/** Delay before the first retry; each later one doubles it (docs/jobs.md "Retries"). */
const BASE_MS = 5_000;
/** No retry waits longer than an hour. */
const CAP_MS = 60 * 60_000;

/**
 * How long to wait before retrying a job that failed its `attempt`-th run (1-based): exponential
 * (5 s, 10 s, 20 s, ... capped at an hour) with jitter of ±50 %, so jobs that failed together do
 * not all come back in the same instant. `random` is injectable for tests.
 */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const base = Math.min(CAP_MS, BASE_MS * 2 ** exponent);
  return Math.round(base * (0.5 + random()));
}
