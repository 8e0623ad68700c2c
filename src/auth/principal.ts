import type { UserPermissionRule } from '../permissions/user-permissions.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';

/** Who a request acts as: the user, their roles, and the flags permission checks branch on. */
export interface Principal {
  readonly user: string;
  readonly roles: ReadonlySet<string>;
  /** The Administrator passes every permission check. */
  readonly isAdministrator: boolean;
  readonly isGuest: boolean;
  readonly userType: 'System User' | 'Website User';
  /**
   * The user's User Permission rules when they were read along with the principal (authentication
   * does, so a cached principal spares that read too); otherwise permission checks read them.
   */
  readonly userPermissions?: readonly UserPermissionRule[];
}

/** The user name of unauthenticated requests. */
export const GUEST_USER = 'Guest';
/** The user that holds every role. */
export const ADMINISTRATOR_USER = 'Administrator';

/** Users the site cannot work without: never deleted or disabled, reached by the Administrator alone. */
export const BUILT_IN_USERS: ReadonlySet<string> = new Set([ADMINISTRATOR_USER, GUEST_USER]);

/** Every unauthenticated request: role Guest only. */
export const GUEST: Principal = Object.freeze({
  user: GUEST_USER,
  roles: new Set([GUEST_USER]) as ReadonlySet<string>,
  isAdministrator: false,
  isGuest: true,
  userType: 'Website User',
});

/** Roles every logged-in user holds without a Has Role row. */
const AUTOMATIC_ROLES = ['All', 'Guest'];
/** The automatic role of users who may use the desk. */
const DESK_USER_ROLE = 'Desk User';
const ADMINISTRATOR_ROLES = ['Administrator', 'System Manager'];

/**
 * A principal for a logged-in user from their stored roles, adding the automatic ones: `All` and
 * `Guest` for everyone, `Desk User` for System Users, and for the Administrator `Administrator`
 * and `System Manager` (permission code bypasses checks for it through `isAdministrator`).
 */
export function makePrincipal(input: { user: string; roles: Iterable<string>; userType?: string | null }): Principal {
  if (input.user === GUEST_USER) return GUEST;
  const userType = input.userType === 'Website User' ? 'Website User' : 'System User';
  const isAdministrator = input.user === ADMINISTRATOR_USER;
  const roles = new Set<string>(input.roles);
  for (const role of AUTOMATIC_ROLES) roles.add(role);
  if (userType === 'System User') roles.add(DESK_USER_ROLE);
  if (isAdministrator) for (const role of ADMINISTRATOR_ROLES) roles.add(role);
  return Object.freeze({ user: input.user, roles, isAdministrator, isGuest: false, userType });
}

interface UserRow {
  name: string;
  enabled: number | string | null;
  user_type: string | null;
}

/** A copy of `principal` carrying the user's User Permission rules. */
export function withUserPermissions(principal: Principal, rules: readonly UserPermissionRule[]): Principal {
  return Object.freeze({ ...principal, userPermissions: rules });
}

const userStatement = perOwner((dialect: Dialect) =>
  statementShape(1, (user: string) => dialect.builder.selectFrom('tabUser').select(['name', 'enabled', 'user_type']).where('name', '=', user).compile()),
);

const rolesStatement = perOwner((dialect: Dialect) =>
  statementShape(1, (user: string) =>
    dialect.builder.selectFrom('tabHas Role').select('role').where('parent', '=', user).where('parenttype', '=', 'User').compile(),
  ),
);

/**
 * The principal of `user` from `tabUser` and `tabHas Role`; undefined when the user is missing or
 * disabled. `Guest` always gives {@link GUEST}.
 */
export async function loadPrincipal(q: Queryable, dialect: Dialect, user: string): Promise<Principal | undefined> {
  if (user === GUEST_USER) return GUEST;
  const users = await q.all<UserRow>(userStatement(dialect)(user));
  if (users.length === 0 || Number(users[0].enabled) !== 1) return undefined;
  const roleRows = await q.all<{ role: string | null }>(rolesStatement(dialect)(user));
  const roles = roleRows.map((r) => r.role).filter((r): r is string => typeof r === 'string' && r !== '');
  return makePrincipal({ user: users[0].name, roles, userType: users[0].user_type });
}
