import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { FastifyReply } from 'fastify';

/** Rows are sent in chunks of about this many characters: few writes, little held at once. */
const CHUNK_CHARS = 64 * 1024;

/** The JSON text around a streamed row array: `{"data":[` and what closes it. */
export interface JsonEnvelope {
  readonly head: string;
  readonly tail: string;
}

/**
 * The text of `rows` as one JSON array inside `envelope`, in chunks, byte for byte what
 * `JSON.stringify` of the whole body gives (no spaces; each row as JSON.stringify writes it).
 * The next rows are read only when the response wants more, so the socket's backpressure reaches
 * the database cursor.
 */
async function* jsonChunks(first: IteratorResult<unknown>, rows: AsyncIterator<unknown>, envelope: JsonEnvelope): AsyncGenerator<string> {
  let chunk = envelope.head;
  let separator = '';
  try {
    for (let next = first; !next.done; next = await rows.next()) {
      chunk += separator + JSON.stringify(next.value);
      separator = ',';
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    yield chunk + envelope.tail;
  } finally {
    // A client that went away stops the cursor too.
    await rows.return?.();
  }
}

/**
 * Sends `rows` as a JSON response and resolves once it has been written (or abandoned). The first
 * row is read before anything is sent, so a failing statement still gets the normal JSON error
 * response; an error after that can only cut the response short (Fastify logs it and closes the
 * connection), and the server carries on.
 */
export async function sendJsonRows(reply: FastifyReply, rows: AsyncIterable<unknown>, envelope: JsonEnvelope): Promise<void> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  const body = Readable.from(jsonChunks(first, iterator, envelope), { objectMode: false });
  reply.type('application/json; charset=utf-8').send(body);
  // Rejects when the body failed or the client left; Fastify has already dealt with both.
  await finished(body).catch(() => undefined);
}
