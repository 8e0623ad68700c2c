import { andThen, type MaybePromise } from '../async/maybe-promise.js';
import { GUEST_USER } from '../auth/principal.js';
import { PermissionError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import type { Condition } from '../query/list-query.js';
import type { PermissionContext } from './permission-context.js';
import { roleGrant } from './role-permissions.js';
import { sharedNames } from './shares.js';
import { userPermissionCondition } from './user-permissions.js';

/**
 * The row condition a list or count of `meta` gets for the principal (docs/api.md "Lists"), or undefined
 * when every row is visible:
 * - without role read or select, only the documents shared with them (none shared: 403);
 * - an if_owner grant limits to `owner = user`; otherwise User Permissions limit the Link values;
 * - `permission_query_conditions` hooks add theirs (ANDed);
 * - when anything restricted the rows, documents shared with the user (or with everyone, but not
 *   for Guest) are ORed back in, read by the list's statement itself.
 */
export function listRestriction(pc: PermissionContext, meta: Meta): MaybePromise<Condition | undefined> {
  const { principal } = pc;
  if (principal.isAdministrator) return undefined;
  const read = roleGrant(principal, meta, 'read');
  const grant = read === 'none' ? roleGrant(principal, meta, 'select') : read;
  if (grant === 'none') return onlyShared(pc, meta);
  // Each step answers at once when it can (cached rules, synchronous hooks): a list's planning then needs no promise.
  const byRules =
    grant === 'own'
      ? ({ field: { field: 'owner' }, op: '=', value: principal.user } satisfies Condition)
      : andThen(pc.userPermissions(), (rules) => userPermissionCondition(meta, rules));
  return andThen(byRules, (first) =>
    andThen(pc.hooks.conditions({ meta, principal, ctx: pc.ctx }), (byHooks) => {
      const parts = [first, byHooks].filter((c): c is Condition => c !== undefined);
      if (parts.length === 0) return undefined;
      const restriction = parts.length === 1 ? parts[0] : { and: parts };
      // The shares are read by the list's own statement (a subquery), not by one of their own; a
      // DocType nobody shared a document of needs no subquery (docs/benchmarks.md "What keeps the hot path fast").
      if (pc.mayHaveShares?.(meta.name) === false) return restriction;
      const sharedWith = { doctype: meta.name, user: principal.user, everyone: principal.user !== GUEST_USER };
      return { or: [restriction, { sharedWith }] };
    }),
  );
}

/** A principal whose roles grant nothing on `meta` lists the documents shared with it, or is refused. */
async function onlyShared(pc: PermissionContext, meta: Meta): Promise<Condition> {
  const shared = sharedNames(await pc.shares(meta.name), 'read');
  if (shared.length === 0) throw noPermission(meta);
  return nameIn(shared);
}

function nameIn(names: string[]): Condition {
  return { field: { field: 'name' }, op: 'in', value: names };
}

/** The 403 of a list the principal may not see at all. */
function noPermission(meta: Meta): PermissionError {
  return new PermissionError(`No permission to read ${meta.name}`, {
    doctype: meta.name,
    messages: [{ message: `Insufficient Permission for ${meta.name}`, title: 'Not permitted' }],
  });
}
