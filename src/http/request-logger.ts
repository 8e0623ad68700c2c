import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type ChildOptions = Record<string, unknown>;

/** The part of a pino logger the lazy child asks before it makes the real one. */
interface LevelAware extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

function levelAware(logger: FastifyBaseLogger): logger is LevelAware {
  return typeof (logger as Partial<LevelAware>).isLevelEnabled === 'function';
}

/**
 * A request's logger (`req.log`) that makes its pino child, with the request id bound, only when
 * something is written at a level the server logs. Fastify makes a child per request, and a pino
 * child (its bindings serialized to JSON, its own object chain) was about 2% of a document GET's
 * CPU profile where nothing is logged at all, the usual case below `info` (docs/benchmarks.md).
 * Once made, the child is the logger: its level and its own children are the real ones.
 */
class RequestLogger implements FastifyBaseLogger {
  readonly #parent: LevelAware;
  readonly #bindings: Bindings;
  readonly #options: ChildOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: LevelAware, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    return this.#child ? this.#child.level : this.#parent.level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#log('error', args);
  }

  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }

  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }

  #log(level: Level, args: unknown[]): void {
    if (!this.#child && !this.#parent.isLevelEnabled(level)) return;
    (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  #real(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }
}

function hasEntries(options: object): boolean {
  for (const _ in options) return true;
  return false;
}

/**
 * Fastify's `childLoggerFactory` with lazy request loggers. A route with logger options of its own
 * (a level, serializers) gets its child at once, as Fastify would make it.
 */
export const lazyRequestLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => {
  if (!levelAware(logger) || hasEntries(options)) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings, options as ChildOptions);
};
