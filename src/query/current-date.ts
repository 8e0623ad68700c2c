import { formatDate, wallClock } from '../datetime/clock.js';

interface Known {
  readonly date: string;
  /** Epoch milliseconds until which `date` holds: the end of the UTC minute it was read in. */
  readonly until: number;
}

const MINUTE_MS = 60_000;
const known = new Map<string, Known>();

/**
 * Today's date `YYYY-MM-DD` in `timeZone`, read from the clock at most once a minute per zone.
 * Every zone's offset is a whole number of minutes, so its date can only change at the start of
 * a UTC minute; until then the last answer stands.
 */
export function currentDate(timeZone: string, nowMs: number = Date.now()): string {
  const last = known.get(timeZone);
  if (last && nowMs < last.until && nowMs >= last.until - MINUTE_MS) return last.date;
  const date = formatDate(wallClock(nowMs, timeZone));
  known.set(timeZone, { date, until: Math.floor(nowMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS });
  return date;
}
