import type { DocField } from './session';

const NUMERIC = new Set(['Int', 'Long Int', 'Float', 'Currency', 'Percent', 'Duration', 'Rating']);

export function isNumeric(fieldtype: string): boolean {
  return NUMERIC.has(fieldtype);
}

/** A value as a list cell shows it: text only, markup removed, numbers grouped. */
export function formatCell(value: unknown, field: DocField | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const type = field?.fieldtype ?? 'Data';
  if (type === 'Check') return value ? 'Yes' : 'No';
  if (type === 'Int' || type === 'Long Int') {
    const n = Number(value);
    if (Number.isFinite(n)) return n.toLocaleString();
  }
  if (type === 'Currency' || type === 'Float' || type === 'Percent') {
    const n = Number(value);
    if (Number.isFinite(n))
      return n.toLocaleString(undefined, { minimumFractionDigits: type === 'Currency' ? 2 : 0, maximumFractionDigits: 6 }) + (type === 'Percent' ? ' %' : '');
  }
  if (type === 'Text Editor' || type === 'HTML Editor')
    return String(value)
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  if (type === 'Datetime') return String(value).replace(/\.\d+$/, '');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** How long ago a timestamp (`YYYY-MM-DD HH:MM:SS[.ffffff]`, UTC by default) was. */
export function timeAgo(stamp: unknown): string {
  if (typeof stamp !== 'string') return '';
  const t = Date.parse(stamp.replace(' ', 'T').replace(/(\.\d{3})\d*$/, '$1') + 'Z');
  if (!Number.isFinite(t)) return stamp;
  const s = Math.round((Date.now() - t) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 86400 * 30) return `${Math.round(s / 86400)} d ago`;
  return stamp.slice(0, 10);
}

export const DOCSTATUS = ['Draft', 'Submitted', 'Cancelled'] as const;
