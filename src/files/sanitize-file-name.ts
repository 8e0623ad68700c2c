import { extname } from 'node:path';

/** Longest name kept (File.file_name is a 140-character Data field; room is left for a hash suffix). */
const MAX_LENGTH = 120;
// Control characters and the bidirectional overrides that can disguise an extension.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Characters that would cut a file URL short.
const URL_BREAKING = /[?#%]/g;

/**
 * A safe file name from what a client sent (docs/api.md: cleaned, not refused): only the last path
 * part, no control characters, no leading dots or spaces, `?#%` replaced, at most 120 characters
 * with the extension kept. Nothing usable left gives `file`.
 */
export function sanitizeFileName(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.normalize('NFC') : '';
  const lastPart = text.replace(INVISIBLE, '').split(/[/\\]/).pop() ?? '';
  const name = lastPart
    .replace(URL_BREAKING, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  if (name === '') return 'file';
  if (name.length <= MAX_LENGTH) return name;
  const ext = extname(name);
  if (ext.length > 20) return name.slice(0, MAX_LENGTH).trim();
  return `${name.slice(0, MAX_LENGTH - ext.length).trim()}${ext}`;
}

/** `name` with `suffix` put before the extension, as the reference renames on a clash (`photo.png` -> `photo3f9c2b.png`). */
export function withSuffix(name: string, suffix: string): string {
  const ext = extname(name);
  return `${name.slice(0, name.length - ext.length)}${suffix}${ext}`;
}
