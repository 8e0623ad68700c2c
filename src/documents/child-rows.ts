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
