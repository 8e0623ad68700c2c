/*
 * What the Files screen shows of a File document: its size in human units, a short kind, and
 * whether the browser can preview it (docs/admin-ui.md "Files").
 */

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** `1536` -> `1.5 KB`; binary multiples, as file managers count them. */
export function humanSize(bytes: unknown): string {
  if (bytes === null || bytes === undefined || bytes === '') return '';
  const n = Number(bytes);
  if (!Number.isFinite(n) || n < 0) return '';
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits).replace(/\.0$/, '')} ${UNITS[unit]}`;
}

/** The file's extension in capitals (`PNG`), from its stored type or else its name. */
export function fileKind(fileType: unknown, fileName: unknown): string {
  if (typeof fileType === 'string' && fileType.trim()) return fileType.trim().toUpperCase();
  const name = typeof fileName === 'string' ? fileName : '';
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toUpperCase() : '';
}

const IMAGE_KINDS = new Set(['PNG', 'JPG', 'JPEG', 'GIF', 'WEBP', 'BMP', 'AVIF', 'ICO']);

/** Images the page shows itself. SVG is left out: it may carry script, and fw serves it as a download. */
export function isImage(kind: string): boolean {
  return IMAGE_KINDS.has(kind);
}

export function isPdf(kind: string): boolean {
  return kind === 'PDF';
}

/**
 * A File's URL as a link or image source, or undefined when it is not one fw serves or a web
 * address. A File can name any `file_url` through the API; a `javascript:` or `data:` one must
 * never become a link a System Manager clicks (the page's CSP would stop it too).
 */
export function fileHref(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  return /^\/(private\/)?files\/[^/]/.test(url) || /^https?:\/\//i.test(url) ? url : undefined;
}
