import { GUEST_USER } from '../auth/principal.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';
import type { ShareGrant } from './shares.js';

interface Row {
  share_name: string | null;
  read: number | string | null;
  write: number | string | null;
  share: number | string | null;
  submit: number | string | null;
}

function sharesQuery(dialect: Dialect, guest: boolean, doctype: string, user: string) {
  return dialect.builder
    .selectFrom('tabDocShare')
    .select(['share_name', 'read', 'write', 'share', 'submit'])
    .where('share_doctype', '=', doctype)
    .where((eb) => (guest ? eb('user', '=', user) : eb.or([eb('user', '=', user), eb('everyone', '=', 1)])));
}

/** The shares query is run by every restricted list and document check: its shapes are built once. */
const shareStatements = perOwner((dialect: Dialect) => {
  const ofDocType = (guest: boolean) =>
    statementShape(2, (doctype: string, user: string) => sharesQuery(dialect, guest, doctype, user).compile());
  const ofDocument = (guest: boolean) =>
    statementShape(3, (doctype: string, user: string, name: string) =>
      sharesQuery(dialect, guest, doctype, user).where('share_name', '=', name).compile(),
    );
  return {
    ofDocType: { guest: ofDocType(true), user: ofDocType(false) },
    ofDocument: { guest: ofDocument(true), user: ofDocument(false) },
  };
});

/**
 * The shares of `doctype` documents (of the one named `name`, when given) with `user`, plus those
 * shared with everyone (which Guest does not get), read from `tabDocShare`.
 */
export async function loadShares(
  q: Queryable,
  dialect: Dialect,
  user: string,
  doctype: string,
  name?: string,
): Promise<ShareGrant[]> {
  const shapes = shareStatements(dialect);
  const who = user === GUEST_USER ? 'guest' : 'user';
  const statement = name === undefined ? shapes.ofDocType[who](doctype, user) : shapes.ofDocument[who](doctype, user, name);
  const rows = await q.all<Row>(statement);
  return rows
    .filter((r): r is Row & { share_name: string } => typeof r.share_name === 'string' && r.share_name !== '')
    .map((r) => ({
      name: r.share_name,
      read: Number(r.read) === 1,
      write: Number(r.write) === 1,
      share: Number(r.share) === 1,
      submit: Number(r.submit) === 1,
    }));
}
