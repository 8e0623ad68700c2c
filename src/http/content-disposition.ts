/**
 * `Content-Disposition: attachment` for a file name in any script (RFC 6266, RFC 5987): a plain
 * `filename` that old clients read (non-ASCII, quotes, backslashes and controls replaced by `_`)
 * and `filename*=UTF-8''…` with the exact name, percent-encoded, which current clients prefer.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(fileName)}`;
}

/** Percent-encodes all but RFC 5987's attr-char (letters, digits and `!#$&+-.^_`|~`). */
function encodeRfc5987(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
