import { hostname } from 'node:os';

/** Where a process without a Fastify app (the cluster primary) reports what it does. */
export interface ProcessLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** pino's level numbers, so these lines sort and filter with the workers' request logs. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;

/**
 * A log writing one JSON object per line in the shape of Fastify's (pino's) log lines: `level`,
 * `time`, `pid`, `hostname`, `msg`. `level` is the threshold by name (FW_LOG_LEVEL); unknown names mean info.
 */
export function jsonLineLog(level = 'info', write: (line: string) => void = (line) => process.stdout.write(line)): ProcessLog {
  const threshold = LEVELS[level as keyof typeof LEVELS] ?? LEVELS.info;
  const host = hostname();
  const emit = (lvl: number, msg: string, fields: Record<string, unknown> = {}) => {
    if (lvl < threshold) return;
    write(`${JSON.stringify({ level: lvl, time: Date.now(), pid: process.pid, hostname: host, ...fields, msg })}\n`);
  };
  return {
    info: (msg, fields) => emit(LEVELS.info, msg, fields),
    warn: (msg, fields) => emit(LEVELS.warn, msg, fields),
    error: (msg, fields) => emit(LEVELS.error, msg, fields),
  };
}
