import { extname } from 'node:path';

/*
 * How a stored file is served (docs/files.md "Serving", docs/security.md "Files"). Files come from
 * users and are served from the origin that serves /app, so only types a browser shows without
 * running or applying anything are served inline with their own type: an allow-list, not a
 * deny-list, so a type nobody thought of is a download. Everything else, scripts (.js, .mjs),
 * styles (.css), pages (.html, .svg, .xml) and every unknown type included, is a download of
 * `application/octet-stream` that no page of the origin can load as a script or stylesheet.
 */
const INLINE: Readonly<Record<string, string>> = {
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/vnd.microsoft.icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  heic: 'image/heic',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
};

/** The type of every file not on the inline list. */
export const DOWNLOAD_TYPE = 'application/octet-stream';

/** How one stored file is served: its Content-Type, and whether a browser may show it in place. */
export interface FilePresentation {
  readonly contentType: string;
  /** False: served as a download (`Content-Disposition: attachment`) in a sandbox. */
  readonly inline: boolean;
}

function extension(name: string): string {
  return extname(name).slice(1).toLowerCase();
}

/** How the file `name` is served, from its extension (the only thing fw knows of its type). */
export function presentationFor(name: string): FilePresentation {
  const type = INLINE[extension(name)];
  return type === undefined ? { contentType: DOWNLOAD_TYPE, inline: false } : { contentType: type, inline: true };
}

/** File.file_type: the upper-case extension (`PNG`), or null for a name without one. */
export function fileTypeFor(name: string): string | null {
  const ext = extension(name);
  return ext === '' ? null : ext.toUpperCase();
}
