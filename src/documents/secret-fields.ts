import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { deleteFieldSecrets, saveFieldSecret } from '../auth/field-secrets.js';
import { PASSWORD_MASK } from '../meta/field-types/password-type.js';
import type { DocContext } from './doc-context.js';

const MASK = /^\*+$/;

/**
 * Password fields never store their value in the document table: the clear value goes encrypted
 * into __Auth and the column keeps a mask of fixed length (PASSWORD_MASK), which tells nothing of it. A value of only asterisks is the
 * mask coming back from a client and leaves the stored secret as it is. `encryptionKey` is the
 * site's (site_config.json), which only the DocumentService holds: no DocContext carries it.
 */
export async function storeSecretFields(ctx: DocContext, meta: Meta, doc: Doc, before: Doc | undefined, encryptionKey: string): Promise<void> {
  for (const f of meta.valueFields) {
    if (!f.type.secret) continue;
    const value = doc[f.def.fieldname];
    if (typeof value === 'string' && value !== '' && !MASK.test(value)) {
      await saveFieldSecret(ctx.q, ctx.dialect, { doctype: meta.name, name: String(doc.name), fieldname: f.def.fieldname }, value, encryptionKey);
      doc[f.def.fieldname] = PASSWORD_MASK;
    } else if (typeof value === 'string' && MASK.test(value)) {
      doc[f.def.fieldname] = before?.[f.def.fieldname] ?? null;
    }
  }
}

/** Removes the stored secrets of a deleted document. */
export async function dropSecretFields(ctx: DocContext, meta: Meta, name: string): Promise<void> {
  if (meta.valueFields.some((f) => f.type.secret)) await deleteFieldSecrets(ctx.q, ctx.dialect, meta.name, name);
}
