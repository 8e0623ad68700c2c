import type { ByteRange } from './file-store.js';

/** A Range header that asks only for bytes past the end of the object. */
export const UNSATISFIABLE = 'unsatisfiable';

/**
 * The range a `Range` header asks for in an object of `size` bytes (RFC 9110 §14.1.2): one
 * `bytes=a-b`, `bytes=a-` or `bytes=-n`, clipped to the object. Undefined means "send the whole
 * object": no header, another unit, several ranges or a malformed one (a server may ignore those).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | typeof UNSATISFIABLE | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return UNSATISFIABLE;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return UNSATISFIABLE;
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
