import { CannotChangeConstantError, MandatoryError, type ServerMessage } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { FieldContext } from '../meta/field-types/field-type.js';
import type { Meta, ResolvedField } from '../meta/meta.js';

function isMissing(field: ResolvedField, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'string' && value.trim() === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return field.type.isEmpty ? field.type.isEmpty(value) : false;
}

/**
 * Checks mandatory fields of the document and its child rows, reporting every missing one at
 * once (docs/apps.md "DocTypes" `reqd`): a MandatoryError whose text is `[DocType, name]: field1, field2`.
 */
export function checkMandatory(meta: Meta, doc: Doc, metaOf: (doctype: string) => Meta): void {
  const missing: string[] = [];
  const messages: ServerMessage[] = [];
  for (const f of meta.fields) {
    if (f.def.reqd !== 1 || f.type.alwaysAnswered) continue;
    if (f.type.isTable) {
      const rows = doc[f.def.fieldname];
      if (!Array.isArray(rows) || rows.length === 0) {
        missing.push(f.def.fieldname);
        messages.push({ message: `Error: Data missing in table ${meta.label(f.def.fieldname)}` });
      }
      continue;
    }
    if (f.column && isMissing(f, doc[f.def.fieldname])) {
      missing.push(f.def.fieldname);
      messages.push({ message: `Error: Value missing for ${meta.name}: ${meta.label(f.def.fieldname)}` });
    }
  }
  for (const tf of meta.tableFields) {
    const rows = doc[tf.def.fieldname];
    if (!Array.isArray(rows)) continue;
    const childMeta = metaOf(tf.def.options ?? '');
    rows.forEach((row: Doc, i) => {
      for (const f of childMeta.valueFields) {
        if (f.def.reqd === 1 && !f.type.alwaysAnswered && isMissing(f, row[f.def.fieldname])) {
          missing.push(`${tf.def.fieldname}[${i + 1}].${f.def.fieldname}`);
          messages.push({ message: `Error: ${childMeta.name} Row #${i + 1}: Value missing for: ${childMeta.label(f.def.fieldname)}` });
        }
      }
    });
  }
  if (missing.length > 0) {
    const name = typeof doc.name === 'string' && doc.name ? doc.name : 'new';
    throw new MandatoryError(`[${meta.name}, ${name}]: ${missing.join(', ')}`, { messages, doctype: meta.name });
  }
}

/** Runs each field type's own validation (Select choices, Email, length...) on non-empty values. */
export function checkFieldValues(meta: Meta, doc: Doc, ctx: FieldContext, metaOf: (doctype: string) => Meta): void {
  for (const f of meta.valueFields) {
    const v = doc[f.def.fieldname];
    if (v !== null && v !== undefined && f.type.validate) f.type.validate(v, f.def, { ...ctx, doctype: meta.name });
  }
  for (const tf of meta.tableFields) {
    const rows = doc[tf.def.fieldname];
    if (Array.isArray(rows)) for (const row of rows) checkFieldValues(metaOf(tf.def.options ?? ''), row as Doc, ctx, metaOf);
  }
}

/** Refuses changes to `set_only_once` fields after insert. */
export function checkSetOnlyOnce(meta: Meta, doc: Doc, before: Doc): void {
  for (const f of meta.valueFields) {
    if (f.def.set_only_once !== 1) continue;
    const old = before[f.def.fieldname];
    const now = doc[f.def.fieldname];
    if (old !== null && old !== undefined && old !== '' && String(old) !== String(now ?? '')) {
      throw new CannotChangeConstantError(`${meta.label(f.def.fieldname)}: cannot be changed once set`);
    }
  }
}
