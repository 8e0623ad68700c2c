import type { Doc } from './api';
import { LAYOUT_TYPES, TABLE_TYPES, type DocField } from './session';

/** Documents handed to the next "new" form (an amendment), kept in memory only. */
const drafts = new Map<string, Doc>();

export function putDraft(doctype: string, doc: Doc): void {
  drafts.set(doctype, doc);
}

export function takeDraft(doctype: string): Doc | undefined {
  const d = drafts.get(doctype);
  drafts.delete(doctype);
  return d;
}

function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/**
 * Defaults the admin UI's own forms set where the API's differ: a User made here gets the welcome
 * mail (docs/mail.md "Invitations"); one made through the API does not unless asked.
 */
const UI_DEFAULTS: Readonly<Record<string, Doc>> = { User: { send_welcome_email: 1 } };

/** A new document with the literal defaults of its fields (the server fills the rest on insert). */
export function newDoc(doctype: string, fields: readonly DocField[]): Doc {
  const doc: Doc = { doctype, docstatus: 0 };
  for (const f of fields) {
    if (LAYOUT_TYPES.has(f.fieldtype)) continue;
    if (TABLE_TYPES.has(f.fieldtype)) {
      doc[f.fieldname] = [];
      continue;
    }
    const d = f.default;
    if (d === undefined || d === null || d === '') {
      if (f.fieldtype === 'Check') doc[f.fieldname] = 0;
      // A Select whose options have no blank starts at its first option, as the reference's form does.
      const options = f.fieldtype === 'Select' ? String(f.options ?? '').split('\n') : [];
      if (options.length && options[0] !== '' && !options.includes('')) doc[f.fieldname] = options[0];
      continue;
    }
    if (f.fieldtype === 'Check' || ['Int', 'Long Int', 'Float', 'Currency', 'Percent'].includes(f.fieldtype)) doc[f.fieldname] = Number(d);
    else if (f.fieldtype === 'Date' && d === 'Today') doc[f.fieldname] = today();
    else if (!['now', 'Now', '__user', 'Today'].includes(d)) doc[f.fieldname] = d;
  }
  return { ...doc, ...UI_DEFAULTS[doctype] };
}

const NOT_COPIED = ['name', 'owner', 'creation', 'modified', 'modified_by', 'docstatus', 'idx'];

/** The draft that amends a cancelled document: its values, no identity, `amended_from` set. */
export function amendedCopy(doc: Doc, fields: readonly DocField[]): Doc {
  const copy: Doc = { doctype: doc.doctype, docstatus: 0, amended_from: doc.name };
  for (const f of fields) {
    if (LAYOUT_TYPES.has(f.fieldtype) || f.fieldname === 'amended_from') continue;
    const v = doc[f.fieldname];
    if (Array.isArray(v))
      copy[f.fieldname] = v.map((row: Doc) =>
        Object.fromEntries(Object.entries(row).filter(([k]) => !NOT_COPIED.includes(k) && !['parent', 'parentfield', 'parenttype'].includes(k))),
      );
    else if (v !== undefined) copy[f.fieldname] = v;
  }
  return copy;
}
