/**
 * Watches a multipart body for its closing delimiter (`CRLF--boundary--`, RFC 2046 5.1.1).
 * The multipart parser treats a body that ends before it as a normal end of the parts, which would
 * let a truncated body through with its last field or file silently missing; multipart-uploads.ts
 * refuses such a body with a 400 instead. Part content can never hold the delimiter (it would end
 * the part), so seeing it anywhere means the body was closed.
 */
export class ClosingDelimiter {
  readonly #needle: Buffer;
  /** The last bytes of the body so far, for a delimiter split across chunks; starts as CRLF for a body that is only the delimiter. */
  #tail: Buffer = Buffer.from('\r\n');
  #seen = false;

  constructor(boundary: string) {
    this.#needle = Buffer.from(`\r\n--${boundary}--`, 'latin1');
  }

  /** The boundary of a multipart content type, or undefined when it names none. */
  static boundaryOf(contentType: string | undefined): string | undefined {
    const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
    return match ? (match[1] ?? match[2]) : undefined;
  }

  get seen(): boolean {
    return this.#seen;
  }

  /** Looks at the next chunk of the body. */
  push(chunk: Buffer): void {
    if (this.#seen) return;
    const keep = this.#needle.length - 1;
    if (chunk.indexOf(this.#needle) >= 0 || Buffer.concat([this.#tail, chunk.subarray(0, keep)]).indexOf(this.#needle) >= 0) {
      this.#seen = true;
      return;
    }
    // A copy, so a large chunk is not held for the sake of its last bytes.
    this.#tail = chunk.length >= keep ? Buffer.from(chunk.subarray(chunk.length - keep)) : Buffer.concat([this.#tail, chunk]).subarray(-keep);
  }
}
