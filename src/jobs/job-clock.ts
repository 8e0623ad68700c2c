/**
 * The time the queue and the scheduler go by, in epoch milliseconds. A seam so tests can move time
 * (a retry due in two minutes) without waiting; production uses the system clock.
 */
export interface JobClock {
  now(): number;
}

/** The system clock. */
export const systemClock: JobClock = { now: () => Date.now() };

/** A clock that stands still until moved: for tests of backoff and leases. */
export class ManualClock implements JobClock {
  constructor(private current: number = Date.now()) {}

  now(): number {
    return this.current;
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }
}
