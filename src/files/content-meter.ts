import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { MaxFileSizeReachedError } from '../errors/index.js';

/** Counts and hashes bytes on their way through, and stops the stream past `maxBytes`. */
export class Meter extends Transform {
  readonly #hash = createHash('sha256');
  readonly #maxBytes: number;
  /** Bytes passed so far (not `size`: lib-storage reads a body's `size` as its length). */
  bytesSeen = 0;

  constructor(maxBytes: number) {
    super();
    this.#maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytesSeen += chunk.length;
    if (this.bytesSeen > this.#maxBytes) {
      done(new MaxFileSizeReachedError(`File size exceeded the maximum allowed size of ${this.#maxBytes} bytes`));
      return;
    }
    this.#hash.update(chunk);
    done(null, chunk);
  }

  digest(): string {
    return this.#hash.digest('hex');
  }
}
