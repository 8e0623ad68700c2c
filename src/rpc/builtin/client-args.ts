import { FrappeTypeError } from '../../errors/index.js';

/*
 * Argument shapes of the fw.client methods that the generic parameter types cannot express:
 * the reference's `get_safe_filters` (a name or filters) and `fieldname` (a name, a list or a dict).
 */

/** What a `filters` argument designates: one document by name, or filters (dict or list). */
export type FilterArg = { readonly name: string } | { readonly filters: unknown };

/** True when text looks like JSON that was meant to be a list or an object. */
function looksStructured(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

function notJson(param: string, text: string): FrappeTypeError {
  return new FrappeTypeError(`Argument ${param} is not valid JSON: ${text.slice(0, 80)}`);
}

/**
 * Reads `filters` as the reference does: a dict or list are filters; a JSON scalar or plain text is
 * a document name (the original text, so `"3E002"` never turns into a number); undefined when absent.
 * Text that starts like a list or object but does not parse is a 417, never a name.
 */
export function filterArg(raw: unknown, param = 'filters'): FilterArg | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw === 'number' || typeof raw === 'boolean') return { name: String(raw) };
  if (typeof raw !== 'string') return { filters: raw };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    if (looksStructured(raw)) throw notJson(param, raw);
    return { name: raw };
  }
  if (parsed !== null && typeof parsed === 'object') return { filters: parsed };
  return { name: typeof parsed === 'string' ? parsed : raw };
}

/**
 * The field names of `get_value`'s `fieldname`: a name, a JSON list, or a dict whose keys are the
 * fields (JSON text or native). Names are checked against the metadata later, when the query compiles.
 */
export function fieldnameArg(raw: unknown, param = 'fieldname'): unknown[] {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      if (looksStructured(raw)) throw notJson(param, raw);
      return [raw];
    }
    // A JSON scalar other than a string is a name that happens to look like one (`"42"`).
    if (value === null || typeof value === 'number' || typeof value === 'boolean') return [raw];
  }
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') return Object.keys(value);
  throw new FrappeTypeError(`Argument ${param} must be a field name, a list of field names or a dict`);
}

/** Keeps only the listed keys of `args` that are present. */
export function pick(args: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (args[k] !== undefined) out[k] = args[k];
  return out;
}

/** A plain JSON object, or a FrappeTypeError naming what it was. */
export function asObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FrappeTypeError(`${what} must be an object, got ${JSON.stringify(value)?.slice(0, 80) ?? String(value)}`);
  }
  return value as Record<string, unknown>;
}

/** A non-empty string field of an object, or a FrappeTypeError. */
export function requiredString(obj: Readonly<Record<string, unknown>>, key: string, what: string): string {
  const v = obj[key];
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string' || v.trim() === '') throw new FrappeTypeError(`${what} must carry ${key}`);
  return v;
}

/** A whole document sent as one argument: the object, its `doctype`, and its `name` when it carries one. */
export interface DocumentArg {
  readonly doc: Record<string, unknown>;
  readonly doctype: string;
  /** Undefined when the document has no name yet (a save or submit of it inserts). */
  readonly name: string | undefined;
}

/** Reads a whole-document argument (`doc` of insert, save, submit): an object carrying its doctype, else a FrappeTypeError. */
export function documentArg(raw: unknown, what = 'doc'): DocumentArg {
  const doc = asObject(raw, what);
  const doctype = requiredString(doc, 'doctype', what);
  const name = doc.name;
  return { doc, doctype, name: name === undefined || name === null || name === '' ? undefined : String(name) };
}
