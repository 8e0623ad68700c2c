import type { ServerMessage } from './api';
import { fieldLabel, type DocField } from './session';

/**
 * Places server messages next to the fields they name. fw's messages name a field by its label
 * ("Value missing for Book: Title", "Row #2: Value missing for: Qty"), so the longest label found in
 * a message decides; messages naming no field stay general.
 */
export function placeMessages(messages: readonly ServerMessage[], fields: readonly DocField[]): { byField: Record<string, string>; general: string[] } {
  const byField: Record<string, string> = {};
  const general: string[] = [];
  const labelled = fields
    .filter((f) => f.fieldname)
    .map((f) => ({ f, label: fieldLabel(f) }))
    .sort((a, b) => b.label.length - a.label.length);
  for (const m of messages) {
    const hit = labelled.find(({ f, label }) =>
      new RegExp(`(^|[\\s:'"(])(${escapeRegExp(label)}|${escapeRegExp(f.fieldname)})($|[\\s:'".,)])`, 'i').test(m.message),
    );
    if (hit && !byField[hit.f.fieldname]) byField[hit.f.fieldname] = m.message;
    else general.push(m.message);
  }
  return { byField, general };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Mandatory fields left empty, checked before a save is sent (the server checks again). */
export function missingMandatory(fields: readonly DocField[], doc: Record<string, unknown>): DocField[] {
  return fields.filter((f) => {
    if (f.reqd !== 1 || f.fieldtype === 'Check' || f.hidden === 1) return false;
    const v = doc[f.fieldname];
    if (Array.isArray(v)) return v.length === 0;
    if (f.fieldtype === 'Text Editor') return typeof v !== 'string' || v.replace(/<[^>]*>|&nbsp;/g, '').trim() === '';
    return v === null || v === undefined || (typeof v === 'string' && v.trim() === '');
  });
}
