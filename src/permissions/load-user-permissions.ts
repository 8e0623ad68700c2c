import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';
import type { UserPermissionRule } from './user-permissions.js';

interface Row {
  allow: string | null;
  for_value: string | null;
  apply_to_all_doctypes: number | string | null;
  applicable_for: string | null;
}

const rulesStatement = perOwner((dialect: Dialect) =>
  statementShape(1, (user: string) =>
    dialect.builder
      .selectFrom('tabUser Permission')
      .select(['allow', 'for_value', 'apply_to_all_doctypes', 'applicable_for'])
      .where('user', '=', user)
      .compile(),
  ),
);

/** The User Permission rules of `user`, read from `tabUser Permission`. */
export async function loadUserPermissions(q: Queryable, dialect: Dialect, user: string): Promise<UserPermissionRule[]> {
  const rows = await q.all<Row>(rulesStatement(dialect)(user));
  const rules: UserPermissionRule[] = [];
  for (const row of rows) {
    if (!row.allow || !row.for_value) continue;
    const everywhere = Number(row.apply_to_all_doctypes) === 1 || !row.applicable_for;
    rules.push(
      everywhere
        ? { allow: row.allow, forValue: row.for_value }
        : { allow: row.allow, forValue: row.for_value, applicableFor: row.applicable_for as string },
    );
  }
  return rules;
}
