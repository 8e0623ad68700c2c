import type { DocField } from '../meta/doctype.js';
import { selectOptions } from '../meta/field-types/select-type.js';
import type { ResolvedField } from '../meta/meta.js';
import { nullable, ref, type JsonSchema } from './json-schema.js';

/** Reading (what fw sends) or writing (what fw takes): input is more lenient than output. */
export type SchemaMode = 'read' | 'write';

/** Datetime values as fw sends them: a space separator, six fraction digits only when not zero (docs/api.md). */
export const DATETIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{6})?$';
/** `creation` and `modified`: always six fraction digits, sent back verbatim for the `modified` check. */
export const STAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{6}$';
const TIME_PATTERN = '^\\d{2}:\\d{2}:\\d{2}(\\.\\d{6})?$';
const TEMPORAL_INPUT = 'Accepts `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.ffffff]` or ISO 8601 with `T` and an offset.';

const TEXT_TYPES = new Set(['Small Text', 'Text', 'Long Text', 'Text Editor', 'Code', 'Markdown Editor', 'HTML Editor', 'Signature', 'Geolocation']);
const SHORT_TYPES = new Set(['Autocomplete', 'Icon', 'Read Only', 'Color', 'Barcode', 'Phone']);
const DECIMAL_TYPES = new Set(['Float', 'Currency', 'Percent']);

/** The schema of one value of `field`, not yet nullable; undefined for types that hold no value. */
function valueSchema(field: ResolvedField, mode: SchemaMode, childSchema: (doctype: string) => string): JsonSchema | undefined {
  const def = field.def;
  const t = def.fieldtype;
  if (field.type.isTable) return { type: 'array', items: ref(childSchema(def.options ?? '')), 'x-fw-child-doctype': def.options };
  if (field.column === undefined) return undefined;
  if (t === 'Data') return dataSchema(def);
  if (t === 'Select') {
    const choices = selectOptions(def);
    if (choices.length === 0) return { type: 'string' };
    return { type: 'string', enum: mode === 'write' ? [...choices, ''] : choices };
  }
  if (t === 'Link') {
    return { type: 'string', maxLength: 140, 'x-fw-link': def.options, description: `The name of a ${def.options} document.` };
  }
  if (t === 'Dynamic Link') {
    return { type: 'string', maxLength: 140, 'x-fw-dynamic-link': def.options, description: `A document name of the DocType named in \`${def.options}\`.` };
  }
  if (t === 'Check') return { type: 'integer', enum: [0, 1] };
  if (t === 'Int') return { type: 'integer', format: (def.length ?? 0) > 11 ? 'int64' : 'int32' };
  if (t === 'Long Int') return { type: 'integer', format: 'int64' };
  if (DECIMAL_TYPES.has(t)) return { type: 'number' };
  if (t === 'Duration') return { type: 'number', minimum: 0, description: 'Seconds.' };
  if (t === 'Rating') return { type: 'number', minimum: 0, maximum: 1 };
  if (t === 'Date') return mode === 'read' ? { type: 'string', format: 'date' } : { type: 'string', description: TEMPORAL_INPUT };
  if (t === 'Datetime') {
    return mode === 'read' ? { type: 'string', pattern: DATETIME_PATTERN, 'x-fw-format': 'datetime' } : { type: 'string', description: TEMPORAL_INPUT };
  }
  if (t === 'Time') return mode === 'read' ? { type: 'string', pattern: TIME_PATTERN } : { type: 'string', description: '`HH:MM:SS[.ffffff]`.' };
  if (t === 'JSON') return { description: 'Any JSON value.' };
  if (t === 'Password') {
    return mode === 'read' ? { type: 'string', description: 'Masked: fw never sends the value.' } : { type: 'string', format: 'password', writeOnly: true };
  }
  if (t === 'Attach' || t === 'Attach Image') return { type: 'string', description: 'A file URL: a site path such as `/files/a.pdf`, or an http(s) URL.' };
  if (TEXT_TYPES.has(t)) return { type: 'string' };
  if (SHORT_TYPES.has(t)) return { type: 'string', maxLength: def.length || 140 };
  return byColumn(field);
}

/** Data: its `options` (Email, Phone, URL, Name, IBAN) say what it holds (docs/api.md "DocTypes are documents"). */
function dataSchema(def: DocField): JsonSchema {
  const schema: JsonSchema = { type: 'string', maxLength: def.length || 140 };
  const option = (def.options ?? '').trim();
  if (option === 'URL') schema.format = 'uri';
  if (option !== '') schema['x-fw-data-option'] = option;
  return schema;
}

/** A field type this module does not name (added later): described by its column. */
function byColumn(field: ResolvedField): JsonSchema {
  switch (field.column?.kind) {
    case 'int':
    case 'bigint':
      return { type: 'integer' };
    case 'decimal':
      return { type: 'number' };
    default:
      return { type: 'string' };
  }
}

/**
 * The JSON Schema of `field`'s value in a document (docs/openapi.md "Field types"), or undefined for
 * layout fields. `childSchema` names the component schema of a child DocType. Values are nullable
 * except where `nonNull` asks otherwise (a required field on create), and except tables (always arrays).
 */
export function fieldSchema(
  field: ResolvedField,
  mode: SchemaMode,
  childSchema: (doctype: string) => string,
  options: { nonNull?: boolean } = {},
): JsonSchema | undefined {
  const base = valueSchema(field, mode, childSchema);
  if (base === undefined) return undefined;
  const def = field.def;
  const annotated: JsonSchema = { ...base, 'x-fw-fieldtype': def.fieldtype };
  if (def.label) annotated.title = def.label;
  const notes = [def.description, base.description].filter((d): d is string => typeof d === 'string' && d !== '');
  if (notes.length) annotated.description = notes.join(' ');
  if (def.read_only === 1 && mode === 'read') annotated.readOnly = true;
  if ((def.permlevel ?? 0) > 0) annotated['x-fw-permlevel'] = def.permlevel;
  if (def.default !== undefined && def.default !== null && def.default !== '' && mode === 'write') annotated['x-fw-default'] = def.default;
  if (field.type.isTable || options.nonNull) return annotated;
  return nullable(annotated);
}
