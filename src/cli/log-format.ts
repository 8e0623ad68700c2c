import { UsageError } from './usage-error.js';

/** How a server process writes its log: readable lines for a person, or JSON lines for a collector. */
export type LogFormat = 'pretty' | 'json';

/**
 * FW_LOG_FORMAT (`pretty` or `json`), else `pretty` when stdout is a terminal and `json` otherwise,
 * so a person starting fw reads sentences and a process manager still gets one JSON object per line
 * (README, "Logs").
 */
export function logFormat(env: string | undefined, stdoutIsTty: boolean): LogFormat {
  const wanted = env?.trim().toLowerCase();
  if (wanted === undefined || wanted === '') return stdoutIsTty ? 'pretty' : 'json';
  if (wanted === 'json' || wanted === 'pretty') return wanted;
  throw new UsageError(`FW_LOG_FORMAT must be "pretty" or "json", got "${env}"`);
}

/** pino's level numbers and the word a pretty line shows for each (info stays unlabelled). */
const LEVEL_WORDS: Record<number, string> = { 10: 'TRACE ', 20: 'DEBUG ', 30: '', 40: 'WARN  ', 50: 'ERROR ', 60: 'FATAL ' };

/** Fields of a pino line that this formatter reads. */
interface Line {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string; type?: string };
  [key: string]: unknown;
}

/** At most this many requests are remembered between their two log lines (aborted ones never finish). */
const MAX_OPEN_REQUESTS = 10_000;

function clock(time: number | undefined): string {
  const d = new Date(time ?? Date.now());
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

function milliseconds(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/**
 * A pino destination turning JSON log lines into readable ones. Fastify writes two lines per
 * request ("incoming request" with the method and URL, already redacted by log-redaction.ts, and
 * "request completed" with the status and time); this keeps the first until the second arrives
 * and prints one line: `12:00:01 GET /api/resource/Book 200 3.1 ms`. Any other line prints its
 * time, level (when not info) and message, and an error's stack below.
 */
export function prettyLogStream(write: (text: string) => void = (text) => process.stdout.write(text)): { write(line: string): void } {
  const open = new Map<string, string>();
  const format = (line: Line): string | undefined => {
    const at = clock(line.time);
    const level = LEVEL_WORDS[line.level ?? 30] ?? '';
    // The banner that follows names the address; Fastify's own line would say it twice.
    if (typeof line.msg === 'string' && line.msg.startsWith('Server listening at ')) return undefined;
    if (line.msg === 'incoming request' && line.reqId !== undefined && line.req) {
      if (open.size >= MAX_OPEN_REQUESTS) open.delete(open.keys().next().value as string);
      open.set(line.reqId, `${line.req.method ?? '?'} ${line.req.url ?? '?'}`);
      return undefined;
    }
    if ((line.msg === 'request completed' || line.msg === 'request errored') && line.reqId !== undefined) {
      const request = open.get(line.reqId) ?? '(request)';
      open.delete(line.reqId);
      const failure = line.err?.message ? ` ${line.err.message}` : '';
      return `${at} ${level}${request} ${line.res?.statusCode ?? '?'} ${milliseconds(line.responseTime)}${failure}`;
    }
    const stack = line.err?.stack ? `\n${line.err.stack.replace(/^/gm, '    ')}` : '';
    return `${at} ${level}${line.msg ?? ''}${stack}`;
  };
  return {
    write(chunk: string) {
      for (const text of chunk.split('\n')) {
        if (text === '') continue;
        let parsed: Line;
        try {
          parsed = JSON.parse(text) as Line;
        } catch {
          write(`${text}\n`);
          continue;
        }
        const out = format(parsed);
        if (out !== undefined) write(`${out}\n`);
      }
    },
  };
}
