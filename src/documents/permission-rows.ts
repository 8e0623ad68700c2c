import { GUEST_USER } from '../auth/principal.js';
import type { ShareGrant } from '../permissions/shares.js';
import type { UserPermissionRule } from '../permissions/user-permissions.js';
import type { Queryable } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { perOwner, statementShape } from '../storage/statement-shape.js';

/*
 * The rows permission decisions read besides metadata: DocShare grants and User Permission rules.
 * The decisions themselves live in permissions/ and never run SQL (docs/architecture.md, "Permissions").
 */

interface ShareRow {
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
  const ofDocType = (guest: boolean) => statementShape(2, (doctype: string, user: string) => sharesQuery(dialect, guest, doctype, user).compile());
  const ofDocument = (guest: boolean) =>
    statementShape(3, (doctype: string, user: string, name: string) => sharesQuery(dialect, guest, doctype, user).where('share_name', '=', name).compile());
  return {
    ofDocType: { guest: ofDocType(true), user: ofDocType(false) },
    ofDocument: { guest: ofDocument(true), user: ofDocument(false) },
  };
});

/**
 * The shares of `doctype` documents (of the one named `name`, when given) with `user`, plus those
 * shared with everyone (which Guest does not get), read from `tabDocShare`.
 */
export async function loadShares(q: Queryable, dialect: Dialect, user: string, doctype: string, name?: string): Promise<ShareGrant[]> {
  const shapes = shareStatements(dialect);
  const who = user === GUEST_USER ? 'guest' : 'user';
  const statement = name === undefined ? shapes.ofDocType[who](doctype, user) : shapes.ofDocument[who](doctype, user, name);
  const rows = await q.all<ShareRow>(statement);
  return rows
    .filter((r): r is ShareRow & { share_name: string } => typeof r.share_name === 'string' && r.share_name !== '')
    .map((r) => ({
      name: r.share_name,
      read: Number(r.read) === 1,
      write: Number(r.write) === 1,
      share: Number(r.share) === 1,
      submit: Number(r.submit) === 1,
    }));
}

const anyShareStatement = perOwner((dialect: Dialect) =>
  statementShape(1, (doctype: string) =>
    dialect.builder.selectFrom('tabDocShare').select('share_doctype').where('share_doctype', '=', doctype).limit(1).compile(),
  ),
);

/** The last answer of anyShareOf per connection and DocType, with the change counter it was read at. */
const shareAnswers = new WeakMap<Queryable, Map<string, { readonly counter: number; readonly any: boolean }>>();

/**
 * Whether any document of `doctype` is shared with anyone, as the unit's snapshot has it: asked only
 * where statements answer at once (an indexed one-row read, cheaper than the share subquery of a
 * list); undefined where each statement is a round trip. Where the connection has a change
 * counter (SQLite's first reader), the answer is kept until anyone commits: while the counter
 * stands the unit reads the same kept snapshot the answer came from (docs/architecture.md "Read units").
 */
export function anyShareOf(q: Queryable, dialect: Dialect, doctype: string): boolean | undefined {
  if (!q.allNow) return undefined;
  const counter = q.changeCounter?.();
  if (counter === undefined) return q.allNow(anyShareStatement(dialect)(doctype)).length > 0;
  let answers = shareAnswers.get(q);
  if (!answers) {
    answers = new Map();
    shareAnswers.set(q, answers);
  }
  const known = answers.get(doctype);
  if (known?.counter === counter) return known.any;
  const any = q.allNow(anyShareStatement(dialect)(doctype)).length > 0;
  answers.set(doctype, { counter, any });
  return any;
}

interface RuleRow {
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
  const rows = await q.all<RuleRow>(rulesStatement(dialect)(user));
  const rules: UserPermissionRule[] = [];
  for (const row of rows) {
    if (!row.allow || !row.for_value) continue;
    const everywhere = Number(row.apply_to_all_doctypes) === 1 || !row.applicable_for;
    rules.push(
      everywhere ? { allow: row.allow, forValue: row.for_value } : { allow: row.allow, forValue: row.for_value, applicableFor: row.applicable_for as string },
    );
  }
  return rules;
}
