import { randomBytes } from 'node:crypto';

/*
 * Job names are UUIDs in the version 7 layout (RFC 9562): the first 48 bits are the time in
 * milliseconds, the rest random. Consecutive jobs then sort together, so inserting one appends to
 * the end of the table's primary-key index instead of landing on a random page of it, which is
 * what a write that enqueues a job (a matching webhook) pays at commit.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function random10(): Buffer {
  if (offset + 10 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const chunk = pool.subarray(offset, offset + 10);
  offset += 10;
  return chunk;
}

/** A new job name: a version 7 UUID (time-ordered, 74 random bits). */
export function newJobName(now: number = Date.now()): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(now, 0, 6);
  random10().copy(bytes, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
