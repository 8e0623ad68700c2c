import { randomBytes } from 'node:crypto';

/** One part of a multipart form: a field, or a file when `filename` is given. */
export interface FormPart {
  readonly name: string;
  readonly value: string | Buffer;
  readonly filename?: string;
  readonly contentType?: string;
}

/** A multipart/form-data body built by hand, for Fastify's inject (which takes a Buffer payload). */
export function multipartForm(parts: readonly FormPart[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----fwtest${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.filename !== undefined || part.contentType) head += `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A form with one file part named `file` plus plain fields. */
export function uploadForm(filename: string, content: string | Buffer, fields: Record<string, string> = {}): ReturnType<typeof multipartForm> {
  return multipartForm([{ name: 'file', value: content, filename }, ...Object.entries(fields).map(([name, value]) => ({ name, value }))]);
}
