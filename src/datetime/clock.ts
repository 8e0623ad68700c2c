/**
 * Timestamps as fw stores and returns them: `YYYY-MM-DD HH:MM:SS.ffffff` in the site's time zone,
 * from a clock that never repeats or goes backwards within a process (docs/api.md).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock parts of an instant in a time zone. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Wall-clock parts of `epochMs` in `timeZone`. */
export function wallClock(epochMs: number, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(epochMs))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `YYYY-MM-DD` of a wall clock. */
export function formatDate(w: Pick<WallClock, 'year' | 'month' | 'day'>): string {
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

// Microseconds since the epoch, kept strictly increasing across calls.
let lastMicros = 0;
const hrBase = process.hrtime.bigint();
const epochBaseMicros = BigInt(Date.now()) * 1000n;

function nextMicros(): number {
  const now = Number(epochBaseMicros + (process.hrtime.bigint() - hrBase) / 1000n);
  lastMicros = now > lastMicros ? now : lastMicros + 1;
  return lastMicros;
}

/** The last second each zone formatted: every write stamps its rows, many within one second. */
const lastSecond = new Map<string, { second: number; text: string }>();

/**
 * `YYYY-MM-DD HH:MM:SS` of the epoch second `second` in `timeZone`. Offsets change only at whole
 * seconds, so one second has one wall-clock text; asking Intl for it costs a write 15–20 µs
 * (docs/benchmarks.md), asking this cache a map lookup.
 */
export function secondText(second: number, timeZone: string): string {
  const cached = lastSecond.get(timeZone);
  if (cached?.second === second) return cached.text;
  const w = wallClock(second * 1000, timeZone);
  const text = `${formatDate(w)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
  lastSecond.set(timeZone, { second, text });
  return text;
}

/** A fresh, strictly increasing timestamp `YYYY-MM-DD HH:MM:SS.ffffff` in `timeZone`. */
export function now(timeZone: string): string {
  const micros = nextMicros();
  return `${secondText(Math.floor(micros / 1_000_000), timeZone)}.${pad(micros % 1_000_000, 6)}`;
}

/** Today's date `YYYY-MM-DD` in `timeZone` (from the same one-second cache as {@link now}). */
export function today(timeZone: string): string {
  return secondText(Math.floor(Date.now() / 1000), timeZone).slice(0, 10);
}
