import type { SendResult } from './webhook-send.js';

/** Waits before the retries that follow attempt 1, 2, ...; the last repeats (docs/webhooks.md "Retries"). */
export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000] as const;
const LONGEST = 10 * 3_600_000;

/** What an attempt's result means for the delivery. */
export type Verdict = { kind: 'delivered' } | { kind: 'retry'; retryAfterMs?: number } | { kind: 'final' };

/** 2xx delivers; network errors, timeouts, 408, 429 and 5xx may be retried; anything else is final. */
export function judge(result: SendResult): Verdict {
  if (result.fatal) return { kind: 'final' };
  const status = result.status;
  if (status === undefined) return { kind: 'retry' };
  if (status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', retryAfterMs: retryAfter(result.headers['retry-after'], Date.now()) };
  return { kind: 'final' };
}

/** `Retry-After` as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Math.min(Number(text.trim()) * 1000, LONGEST);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), LONGEST);
}

/** The wait after failed attempt `attempt` (1-based): the schedule with ±10 % jitter, or the receiver's Retry-After. */
export function nextRetryDelay(attempt: number, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.max(1_000, retryAfterMs);
  const base = RETRY_SCHEDULE_MS[Math.min(attempt, RETRY_SCHEDULE_MS.length) - 1];
  return Math.round(base * (0.9 + 0.2 * random()));
}
