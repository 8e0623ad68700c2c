/** A file kept by the site's store: its name, privacy, store key and URL. */
export interface LocalFile {
  readonly name: string;
  readonly isPrivate: boolean;
  /** The store key: the URL without its leading slash. */
  readonly key: string;
  /** `/files/<name>` or `/private/files/<name>`. */
  readonly url: string;
}

const PUBLIC_PREFIX = '/files/';
const PRIVATE_PREFIX = '/private/files/';
// Control characters, path separators, and characters that would cut a URL short.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f/\\?#%]/;

/**
 * True for a name the store may hold: one path segment, no leading dot (temporary files start
 * with one, and so no URL can reach them), nothing a URL or a file system would read specially.
 */
export function isStorableName(name: string): boolean {
  return name !== '' && name.length <= 255 && !name.startsWith('.') && !UNSAFE.test(name) && name.trim() === name;
}

/** The stored file `name` (already storable) of the given privacy. */
export function localFile(name: string, isPrivate: boolean): LocalFile {
  const url = `${isPrivate ? PRIVATE_PREFIX : PUBLIC_PREFIX}${name}`;
  return { name, isPrivate, key: url.slice(1), url };
}

/** The stored file a URL points at, or undefined when it is remote, malformed or could escape its folder. */
export function parseFileUrl(url: unknown): LocalFile | undefined {
  if (typeof url !== 'string') return undefined;
  const isPrivate = url.startsWith(PRIVATE_PREFIX);
  if (!isPrivate && !url.startsWith(PUBLIC_PREFIX)) return undefined;
  const name = url.slice(isPrivate ? PRIVATE_PREFIX.length : PUBLIC_PREFIX.length);
  return isStorableName(name) ? localFile(name, isPrivate) : undefined;
}

/** True for a URL that points at a stored file's place, valid or not (`/files/...`, `/private/files/...`). */
export function looksLocal(url: string): boolean {
  return url.startsWith(PUBLIC_PREFIX) || url.startsWith(PRIVATE_PREFIX);
}
