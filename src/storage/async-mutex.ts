/** A FIFO lock for async work; SQLite allows one writer, so write transactions take turns here. */
export class AsyncMutex {
  #tail: Promise<void> = Promise.resolve();
  #holding = 0;
  #waiting = 0;

  /** Whether some work holds the lock now. */
  get held(): boolean {
    return this.#holding > 0;
  }

  /** How many callers wait for the lock. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Runs `work` once every earlier holder has finished. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    this.#waiting++;
    try {
      await previous;
    } finally {
      this.#waiting--;
    }
    this.#holding++;
    try {
      return await work();
    } finally {
      this.#holding--;
      release();
    }
  }
}
