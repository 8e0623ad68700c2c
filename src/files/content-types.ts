import { extname } from 'node:path';

// The types people attach to documents; anything else is served as octet-stream.
const TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  json: 'application/json; charset=utf-8',
  xml: 'application/xml',
  xhtml: 'application/xhtml+xml',
  ics: 'text/calendar; charset=utf-8',
  vcf: 'text/vcard; charset=utf-8',
  pdf: 'application/pdf',
  rtf: 'application/rtf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/vnd.microsoft.icon',
  svg: 'image/svg+xml',
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
  avi: 'video/x-msvideo',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
};

// Types a browser would run script in when the file is opened directly from the site's origin.
const ACTIVE = new Set(['html', 'htm', 'xhtml', 'svg', 'xml', 'js', 'mjs']);

function extension(name: string): string {
  return extname(name).slice(1).toLowerCase();
}

/** The Content-Type a stored file is served with, from its extension. */
export function contentTypeFor(name: string): string {
  return TYPES[extension(name)] ?? 'application/octet-stream';
}

/** True when a browser opening the file directly could run script in it (HTML, SVG, XML, JavaScript). */
export function isActiveContent(name: string): boolean {
  return ACTIVE.has(extension(name));
}

/** File.file_type: the upper-case extension (`PNG`), or null for a name without one. */
export function fileTypeFor(name: string): string | null {
  const ext = extension(name);
  return ext === '' ? null : ext.toUpperCase();
}
