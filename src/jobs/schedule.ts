import { Cron } from 'croner';

/** The reference's named frequencies and the cron patterns fw gives them (docs/jobs.md "Scheduler"). */
export const FREQUENCIES: Readonly<Record<string, string>> = {
  all: '*/4 * * * *',
  hourly: '0 * * * *',
  daily: '0 0 * * *',
  weekly: '0 0 * * 0',
  monthly: '0 0 1 * *',
};

/** When a scheduled handler is due: a named frequency or a cron expression, in the site's time zone. */
export class Schedule {
  readonly #cron: Cron;

  /** Throws with the reason when `when` is neither a frequency nor a valid cron expression. */
  constructor(
    readonly when: string,
    timeZone: string,
  ) {
    const pattern = FREQUENCIES[when] ?? when;
    try {
      this.#cron = new Cron(pattern, { timezone: timeZone, paused: true });
    } catch (err) {
      throw new Error(`"${when}" is neither ${Object.keys(FREQUENCIES).join(', ')} nor a cron expression: ${(err as Error).message}`);
    }
  }

  /** The latest slot at or before `now` (epoch ms), or undefined when the schedule never fired before it. */
  latestSlot(now: number): number | undefined {
    const [slot] = this.#cron.previousRuns(1, new Date(now + 1));
    return slot?.getTime();
  }

  /** The next slot after `now`. */
  nextSlot(now: number): number | undefined {
    return this.#cron.nextRun(new Date(now))?.getTime();
  }
}
