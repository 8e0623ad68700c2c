import { randomBytes } from 'node:crypto';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';

const ALPHABET = '0123456789abcdefghijklmnopqrstuv';

/** A name for a new child row: 10 random base-32 characters, like hash-named documents. */
export function newChildName(): string {
  const bytes = randomBytes(10);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

/**
 * Fills the standard columns of every child row of `doc`: the link to its parent, idx renumbered
 * from 1, a name for new rows, and the timestamps of this write.
 */
export function stampChildRows(meta: Meta, doc: Doc, stamp: string, user: string): void {
  for (const tf of meta.tableFields) {
    const rows = doc[tf.def.fieldname];
    if (!Array.isArray(rows)) continue;
    rows.forEach((row: Doc, i) => {
      row.name = typeof row.name === 'string' && row.name !== '' ? row.name : newChildName();
      row.parent = doc.name;
      row.parenttype = meta.name;
      row.parentfield = tf.def.fieldname;
      row.idx = i + 1;
      row.docstatus = doc.docstatus;
      row.owner = row.owner ?? doc.owner ?? user;
      row.creation = row.creation ?? stamp;
      row.modified = stamp;
      row.modified_by = user;
    });
  }
}

/** Standard columns a client never sets on a row: the write stamps them (stampChildRows). */
const STAMPED_ROW_KEYS = ['owner', 'creation', 'modified', 'modified_by', 'parent', 'parenttype', 'parentfield', 'idx', 'docstatus'];

/**
 * Ties the client-sent rows of `patch` (in place) to what is stored. On an update a row keeps its
 * name only when `before` holds a row of that name in the same table; any other name (a row of
 * another document or another table) is dropped, so the row is inserted as new instead of taking
 * over a row the client may not write. Owner and creation come from the stored row, never from
 * the client. Call before merging the patch and before coerceFields, which gives rows without a
 * name their defaults.
 */
export function claimChildRows(meta: Meta, patch: Doc, before: Doc | undefined): void {
  for (const tf of meta.tableFields) {
    const rows = patch[tf.def.fieldname];
    if (!Array.isArray(rows)) continue;
    const storedRows = before?.[tf.def.fieldname];
    const stored = new Map<unknown, Doc>(Array.isArray(storedRows) ? (storedRows as Doc[]).map((r) => [r.name, r]) : []);
    for (const row of rows) {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) continue; // coerceFields reports it
      const r = row as Doc;
      for (const key of STAMPED_ROW_KEYS) delete r[key];
      const own = before === undefined ? undefined : stored.get(r.name);
      if (own) {
        r.owner = own.owner;
        r.creation = own.creation;
      } else if (before !== undefined) {
        delete r.name;
      }
    }
  }
}
