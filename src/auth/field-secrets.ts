import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { AUTH_TABLE } from './auth-tables.js';
import { decryptSecret, encryptSecret } from './secret-cipher.js';

/** Which Password field of which document a secret belongs to. */
export interface FieldSecretRef {
  readonly doctype: string;
  readonly name: string;
  readonly fieldname: string;
}

/**
 * Stores the value of a Password field encrypted in `__Auth` (the document's own column then holds
 * only a mask), replacing any earlier value.
 */
export async function saveFieldSecret(q: Queryable, dialect: Dialect, ref: FieldSecretRef, plain: string, encryptionKey: string): Promise<void> {
  const password = encryptSecret(plain, encryptionKey);
  await q.run(
    dialect.builder
      .insertInto(AUTH_TABLE)
      .values({ doctype: ref.doctype, name: ref.name, fieldname: ref.fieldname, password, encrypted: 1 })
      .onConflict((oc) => oc.columns(['doctype', 'name', 'fieldname']).doUpdateSet({ password, encrypted: 1 }))
      .compile(),
  );
}

/** The decrypted value of a Password field, or undefined when none is stored. */
export async function getFieldSecret(q: Queryable, dialect: Dialect, ref: FieldSecretRef, encryptionKey: string): Promise<string | undefined> {
  const rows = await q.all<{ password: string }>(
    dialect.builder
      .selectFrom(AUTH_TABLE)
      .select('password')
      .where('doctype', '=', ref.doctype)
      .where('name', '=', ref.name)
      .where('fieldname', '=', ref.fieldname)
      .where('encrypted', '=', 1)
      .compile(),
  );
  return rows.length === 0 ? undefined : decryptSecret(rows[0].password, encryptionKey);
}

/**
 * Deletes every `__Auth` row of a document (encrypted fields and, for a User, the password and
 * API-secret hashes too); called when the document is deleted.
 */
export async function deleteFieldSecrets(q: Queryable, dialect: Dialect, doctype: string, name: string): Promise<number> {
  const { changes } = await q.run(dialect.builder.deleteFrom(AUTH_TABLE).where('doctype', '=', doctype).where('name', '=', name).compile());
  return changes;
}

/** Moves every `__Auth` row of a document to its new name; called when the document is renamed. */
export async function renameFieldSecrets(q: Queryable, dialect: Dialect, doctype: string, oldName: string, newName: string): Promise<number> {
  const { changes } = await q.run(
    dialect.builder.updateTable(AUTH_TABLE).set({ name: newName }).where('doctype', '=', doctype).where('name', '=', oldName).compile(),
  );
  return changes;
}
