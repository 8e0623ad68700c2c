import { randomBytes } from 'node:crypto';

/** base32hex, lower case: sorts like the numbers it encodes and survives case-insensitive collations. */
const ALPHABET = '0123456789abcdefghijklmnopqrstuv';
const TIME_CHARS = 4;
const RANDOM_CHARS = 6;

/*
 * The time prefix counts milliseconds, wrapped into 20 bits (about 17 minutes): names made one
 * after another share leading characters, so inserts land on neighbouring index pages, while a
 * burst of inserts is spread over many prefixes and so rarely meets the same 30 random bits.
 */
function timePrefix(epochMs: number): string {
  let t = epochMs % 32 ** TIME_CHARS;
  let out = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/*
 * Random bytes are drawn from the system's generator a pool at a time: one call per name cost more
 * than the rest of naming (a write path that names several rows, a webhook's log row, felt it).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

function randomChunk(size: number): Buffer {
  if (offset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const chunk = pool.subarray(offset, offset + size);
  offset += size;
  return chunk;
}

/** A new `hash` name: 10 lowercase base32hex characters, 4 from the clock and 6 random. */
export function hashName(epochMs: number = Date.now()): string {
  let out = timePrefix(epochMs);
  // 256 is a multiple of 32, so masking a byte keeps every character equally likely.
  for (const b of randomChunk(RANDOM_CHARS)) out += ALPHABET[b & 31];
  return out;
}
