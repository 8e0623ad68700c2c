import { ValidationError } from '../errors/index.js';
import type { ResolvedField } from '../meta/meta.js';
import { cellText, isEmptyCell, type Cell } from './cells.js';

/** The order of day and month in a column's non-ISO dates. */
export type DateOrder = 'dmy' | 'mdy';

/** How a column's dates read, in the reference's notation (shown in the preview's columns). */
export const DATE_FORMAT_OF: Readonly<Record<DateOrder, string>> = { dmy: 'dd-mm-yyyy', mdy: 'mm-dd-yyyy' };

const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;
const LOCAL_DATE = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

const DATE_TYPES = new Set(['Date', 'Datetime']);
const CHECK_VALUES: ReadonlyMap<string, 0 | 1> = new Map([
  ['1', 1],
  ['0', 0],
  ['t', 1],
  ['f', 0],
  ['true', 1],
  ['false', 0],
  ['yes', 1],
  ['no', 0],
  ['y', 1],
  ['n', 0],
]);

/** True for the field types whose text the importer reads as a date. */
export function isDateField(field: ResolvedField | undefined): boolean {
  return field !== undefined && DATE_TYPES.has(field.def.fieldtype);
}

/**
 * What a text date says about its column's order: `dmy` when only day-first reads it, `mdy` when
 * only month-first does, undefined when both or neither (or it is ISO).
 */
export function dateOrderEvidence(cell: Cell): DateOrder | undefined {
  if (typeof cell !== 'string') return undefined;
  const m = LOCAL_DATE.exec(cell.trim());
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = Number(m[2]);
  if (a > 12 && b <= 12) return 'dmy';
  if (b > 12 && a <= 12) return 'mdy';
  return undefined;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

interface DateTimeParts {
  readonly date: string;
  readonly time: string | undefined;
}

function fromDateCell(value: Date): DateTimeParts {
  // exceljs reads a date cell's serial number as UTC.
  const date = `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}`;
  const time = `${pad(value.getUTCHours())}:${pad(value.getUTCMinutes())}:${pad(value.getUTCSeconds())}`;
  return { date, time };
}

function fromText(text: string, order: DateOrder, field: ResolvedField): DateTimeParts {
  const iso = ISO_DATE.exec(text);
  const local = iso ? undefined : LOCAL_DATE.exec(text);
  const m = iso ?? local;
  if (m) {
    const [y, mo, d] = iso
      ? [Number(m[1]), Number(m[2]), Number(m[3])]
      : order === 'dmy'
        ? [Number(m[3]), Number(m[2]), Number(m[1])]
        : [Number(m[3]), Number(m[1]), Number(m[2])];
    if (validDate(y, mo, d)) {
      const time = m[4] !== undefined ? `${pad(Number(m[4]))}:${m[5]}:${m[6] ?? '00'}` : undefined;
      return { date: `${y}-${pad(mo)}-${pad(d)}`, time };
    }
  }
  throw new ValidationError(
    `Value ${JSON.stringify(text)} for ${field.def.label ?? field.def.fieldname} is not a date in the format ${DATE_FORMAT_OF[order]} or yyyy-mm-dd`,
  );
}

/**
 * A cell as the value the document pipeline takes for `field`, or undefined for an empty cell
 * (the field then keeps its default, or its stored value on update). Dates are read in ISO or the
 * column's order; Check takes the reference's yes/no words. Everything else goes to the pipeline
 * as text or number and is validated there, as a save would validate it.
 */
export function fieldValue(cell: Cell, field: ResolvedField, order: DateOrder): unknown {
  if (isEmptyCell(cell)) return undefined;
  const type = field.def.fieldtype;
  if (type === 'Check') {
    if (typeof cell === 'boolean') return cell ? 1 : 0;
    const v = CHECK_VALUES.get(cellText(cell).trim().toLowerCase());
    if (v === undefined)
      throw new ValidationError(
        `Value ${JSON.stringify(cellText(cell))} for ${field.def.label ?? field.def.fieldname} must be one of yes, no, true, false, 1 or 0`,
      );
    return v;
  }
  if (type === 'Date' || type === 'Datetime') {
    const parts = cell instanceof Date ? fromDateCell(cell) : fromText(cellText(cell).trim(), order, field);
    return type === 'Date' ? parts.date : `${parts.date} ${parts.time ?? '00:00:00'}`;
  }
  if (type === 'Time' && cell instanceof Date) return fromDateCell(cell).time;
  if (typeof cell === 'number' && field.type.numeric) return cell;
  if (typeof cell === 'string') return field.type.numeric ? cell.trim() : cell;
  return cellText(cell);
}
