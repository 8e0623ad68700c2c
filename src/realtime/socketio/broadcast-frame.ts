/**
 * One event, encoded once for every socket of a namespace that receives it: the Socket.IO packet
 * (what the Engine.IO polling transport sends) and the whole WebSocket frame that carries it, in
 * one buffer, so a delivery over WebSocket is one write of bytes already made (docs/benchmarks.md,
 * "Realtime"). Only events whose arguments are plain JSON are encoded here; anything holding
 * binary data goes through Socket.IO's own encoder, which sends it as attachments.
 */
export interface BroadcastFrame {
  /** The Socket.IO EVENT packet: `2`, the namespace and a comma unless it is `/`, then the JSON array `[event, ...args]`. */
  readonly packet: string;
  /** A final, unmasked WebSocket text frame (RFC 6455, section 5.2) of the Engine.IO message `4<packet>`. */
  readonly frame: Buffer;
}

/** True when `value` holds bytes somewhere (a Buffer, an ArrayBuffer or a view of one), which JSON cannot carry as Socket.IO would. */
export function holdsBinary(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return true;
  // Deeper than any realtime payload goes: the cost of the walk stays bounded, and such a value takes Socket.IO's path.
  if (depth > 32) return true;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return value.some((item) => holdsBinary(item, depth + 1));
  for (const key in value) if (holdsBinary((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** The header of a final, unmasked text frame of `length` payload bytes: 2, 4 or 10 bytes. */
function frameHeader(length: number): Buffer {
  const FIN_TEXT = 0x81;
  if (length < 126) return Buffer.from([FIN_TEXT, length]);
  if (length < 0x10000) {
    const header = Buffer.allocUnsafe(4);
    header[0] = FIN_TEXT;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
    return header;
  }
  const header = Buffer.allocUnsafe(10);
  header[0] = FIN_TEXT;
  header[1] = 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  return header;
}

/** Encodes `event` with `args` for the namespace `nsp` (`/` or `/<name>`). */
export function encodeBroadcast(nsp: string, event: string, args: readonly unknown[]): BroadcastFrame {
  const packet = `2${nsp === '/' ? '' : `${nsp},`}${JSON.stringify([event, ...args])}`;
  const payload = Buffer.from(`4${packet}`, 'utf8');
  return { packet, frame: Buffer.concat([frameHeader(payload.length), payload]) };
}
