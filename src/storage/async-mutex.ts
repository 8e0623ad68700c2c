/** A FIFO lock for async work; SQLite allows one writer, so write transactions take turns here. */
export class AsyncMutex {
  #tail: Promise<void> = Promise.resolve();

  /** Runs `work` once every earlier holder has finished. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous;
      return await work();
    } finally {
      release();
    }
  }
}
