/** How RestartBackoff spaces replacements. */
export interface RestartBackoffOptions {
  /** Wait before replacing a worker after a lone death. */
  readonly baseMs: number;
  /** The longest wait, however many deaths came before. */
  readonly maxMs: number;
  /** Deaths older than this no longer lengthen the wait. */
  readonly windowMs: number;
}

const DEFAULTS: RestartBackoffOptions = { baseMs: 100, maxMs: 10_000, windowMs: 60_000 };

/**
 * The wait before replacing a worker that died: short after a one-off crash, doubling with every
 * further death within the window, so a worker that crashes at start cannot make the primary spin.
 */
export class RestartBackoff {
  readonly #options: RestartBackoffOptions;
  #deaths: number[] = [];

  constructor(options: Partial<RestartBackoffOptions> = {}) {
    this.#options = { ...DEFAULTS, ...options };
  }

  /** Records a death at `now` (ms) and returns how long to wait before starting its replacement. */
  next(now: number): number {
    const { baseMs, maxMs, windowMs } = this.#options;
    this.#deaths = this.#deaths.filter((t) => now - t < windowMs);
    this.#deaths.push(now);
    // Capped exponent: 2 ** n overflows to Infinity long before n stops growing in a crash loop.
    const doublings = Math.min(this.#deaths.length - 1, 30);
    return Math.min(baseMs * 2 ** doublings, maxMs);
  }
}
