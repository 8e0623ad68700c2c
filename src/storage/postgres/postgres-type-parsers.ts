import pg from 'pg';

/** Type OIDs whose text form we parse ourselves (see pg_type). */
const OID = {
  int8: 20,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
} as const;

const TIMESTAMP = /^(\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/;
const TIME = /^(\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/;

function sixDigits(fraction: string | undefined): string {
  return (fraction ?? '').padEnd(6, '0').slice(0, 6);
}

/**
 * `2031-02-28 10:00:00.1` becomes `2031-02-28 10:00:00.100000`: PostgreSQL drops trailing zeros of
 * the fraction, SQLite keeps the text as written, and clients compare `modified` as text.
 * A UTC offset (timestamptz; sessions run in UTC) is dropped; `infinity` and BC dates pass unchanged.
 */
export function normaliseTimestamp(text: string): string {
  const m = TIMESTAMP.exec(text);
  if (!m) return text;
  const rest = /^[+-]\d\d(:\d\d){0,2}$/.test(m[3]) ? '' : m[3];
  return `${m[1]}.${sixDigits(m[2])}${rest}`;
}

/** `10:00:00` becomes `10:00:00.000000`, the form times are stored in on SQLite. */
export function normaliseTime(text: string): string {
  const m = TIME.exec(text);
  return m ? `${m[1]}.${sixDigits(m[2])}${m[3]}` : text;
}

type Parser = (text: string) => unknown;

const PARSERS: ReadonlyMap<number, Parser> = new Map<number, Parser>([
  // Counts and bigint columns: JS numbers, as SQLite returns them (exact up to 2^53).
  [OID.int8, (t) => Number(t)],
  [OID.numeric, (t) => Number(t)],
  // Dates stay text: a JS Date would shift with the process time zone.
  [OID.date, (t) => t],
  [OID.time, normaliseTime],
  [OID.timestamp, normaliseTimestamp],
  [OID.timestamptz, normaliseTimestamp],
]);

/**
 * Type parsers for one pool (the Pool `types` option), so values read back look as SQLite returns
 * them; the process-wide `pg.types` table is left alone for other users of the driver.
 */
export function postgresTypeParsers(): { getTypeParser: typeof pg.types.getTypeParser } {
  const getTypeParser = ((oid: number, format?: 'text' | 'binary') => {
    const own = format === 'binary' ? undefined : PARSERS.get(oid);
    return own ?? pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser;
  return { getTypeParser };
}
