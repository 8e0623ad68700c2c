import { GUEST_USER } from '../auth/principal.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import type { ShareGrant } from './shares.js';

interface Row {
  share_name: string | null;
  read: number | string | null;
  write: number | string | null;
  share: number | string | null;
  submit: number | string | null;
}

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
  let query = dialect.builder
    .selectFrom('tabDocShare')
    .select(['share_name', 'read', 'write', 'share', 'submit'])
    .where('share_doctype', '=', doctype)
    .where((eb) => (user === GUEST_USER ? eb('user', '=', user) : eb.or([eb('user', '=', user), eb('everyone', '=', 1)])));
  if (name !== undefined) query = query.where('share_name', '=', name);
  const rows = await q.all<Row>(query.compile());
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
