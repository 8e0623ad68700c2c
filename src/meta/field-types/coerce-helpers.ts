/**
 * Small pieces every field type shares: the label used in messages, the refusal of values of the
 * wrong shape, and turning scalars into text.
 */
import { CharacterLengthExceededError, ValidationError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';

/** The name a message shows for a field: its label, or its fieldname when it has none. */
export function fieldLabel(field: DocField): string {
  return field.label || field.fieldname;
}

/** A short quoted rendering of a value for error messages. */
export function describeValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return `'${text.length > 60 ? `${text.slice(0, 60)}...` : text}'`;
}

/** The 417 for a value a field type cannot take, e.g. "Qty: Invalid value 'abc' for Int". */
export function invalidValue(field: DocField, value: unknown, typeName: string = field.fieldtype): ValidationError {
  return new ValidationError(`${fieldLabel(field)}: Invalid value ${describeValue(value)} for ${typeName}`);
}

/** True for `{...}` objects (not arrays, dates or other class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Throws the reference's 417 for a list or an object sent to a field that holds neither. */
export function rejectContainer(value: unknown, field: DocField): void {
  if (Array.isArray(value)) throw new ValidationError(`Value for ${fieldLabel(field)} cannot be a list`);
  if (isPlainObject(value)) throw new ValidationError(`Value for ${fieldLabel(field)} cannot be an object`);
}

/** True when text holds NUL, which PostgreSQL text cannot hold: refused on every engine alike. */
export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/**
 * Turns an incoming value into text: strings as they are (unless they hold NUL), finite numbers
 * and bigints in their usual form, null/undefined to null; booleans, lists and objects are 417.
 */
export function coerceText(value: unknown, field: DocField): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    if (hasNul(value)) throw new ValidationError(`${fieldLabel(field)}: NUL characters are not allowed`);
    return value;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return String(value);
  rejectContainer(value, field);
  throw invalidValue(field, value);
}

/** Throws CharacterLengthExceededError when `text` has more than `max` characters. */
export function assertMaxLength(text: string, field: DocField, max: number): void {
  // Columns count characters (code points), not UTF-16 units.
  const chars = [...text];
  if (chars.length <= max) return;
  const preview = chars.length > 40 ? `${chars.slice(0, 40).join('')}...` : text;
  throw new CharacterLengthExceededError(`${fieldLabel(field)}: '${preview}' will get truncated, as max characters allowed is ${max}`);
}

/** Input for date and time types: trimmed text, or null for null, undefined and blank; other shapes are 417. */
export function temporalText(value: unknown, field: DocField): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  rejectContainer(value, field);
  throw invalidValue(field, value);
}
