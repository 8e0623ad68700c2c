import { andThen, type MaybePromise } from '../../async/maybe-promise.js';
import { DataError } from '../../errors/index.js';
import type { Meta } from '../../meta/meta.js';
import { listFieldAccess, type FieldAccess } from '../../permissions/list-field-access.js';
import { listRestriction } from '../../permissions/list-restriction.js';
import { mayUseDocType } from '../../permissions/document-access.js';
import type { PermissionContext } from '../../permissions/permission-context.js';
import { permissionContext } from '../unit-permissions.js';
import { permissionDenied } from '../../permissions/permission-denied.js';
import type { Principal } from '../../auth/principal.js';
import { withChildRows, type ChildSelection } from '../../query/child-rows.js';
import { compileCountQuery, compileListQuery, type CompileContext, type OutputColumn } from '../../query/compile-list-query.js';
import { CompiledStatementCache } from '../../query/compiled-statement-cache.js';
import { currentDate } from '../../query/current-date.js';
import { statementRows, type Row, type SqlStatement } from '../../storage/database.js';
import type { Condition, ListQuery } from '../../query/list-query.js';
import { shapeInPlace, shapeRowStream, shapeRows, shapesInPlace, type ShapedRow } from '../../query/shape-rows.js';
import type { DocContext } from '../doc-context.js';
import { linkJoinRestrictions } from './link-join-restrictions.js';

/** How a list is answered besides its query; the API surfaces differ here (docs/api.md "API v2"). */
export interface ListOptions {
  /** Read one row more than the page, to learn `hasNextPage`. */
  readonly nextPage?: boolean;
  /** The direction of an `order_by` term that names none, and of the default sort. */
  readonly defaultDirection?: 'asc' | 'desc';
}

/** A page of list rows; `hasNextPage` is known when the caller asked for one row more. */
export interface ListResult {
  readonly rows: unknown[];
  readonly hasNextPage: boolean;
}

/** What the permission layer hands the list compiler: a row condition and a field check. */
interface PermissionScope {
  readonly restrict: Condition | undefined;
  /**
   * The field check, made only when a plan is compiled: the plan key names the roles it comes from
   * (accessKey), and a kept plan needs no check of its own.
   */
  readonly canRead: () => FieldAccess;
  /** The DocType whose permissions apply (the parent, for a child table). */
  readonly subject: string;
  /** For a child table: the parent's own row condition, applied to the parents of the rows. */
  readonly parentRestrict?: { readonly meta: Meta; readonly condition: Condition };
  /** The row conditions of the DocTypes the request reaches through Link joins. */
  readonly linkRestrictions?: ReadonlyMap<string, Condition>;
}

/** A list request made ready to run: its statement and how to page and shape its rows. */
export interface ListPlan {
  readonly statement: SqlStatement;
  readonly columns: readonly OutputColumn[];
  readonly asDict: boolean;
  /** The page size asked for; 0 means every row, which {@link listRows} can stream. */
  readonly pageLength: number;
  /** True when the statement asks for one row more than the page, to learn `hasNextPage`. */
  readonly probeNext: boolean;
  /** Nested child tables read for each page; empty for most lists. */
  readonly children: readonly ChildSelection[];
  /** The driver column holding each row's name, when `children` is not empty. */
  readonly nameColumn?: string;
  /** The statement's rows become the page's rows, shaped in place (see shapesInPlace). */
  readonly inPlace: boolean;
}

/**
 * Parsed and compiled list and count requests. A client paging through a list sends the same
 * parameters again and again, and parsing and building the SQL cost more than running it.
 */
const listPlans = new CompiledStatementCache<ListPlan>();
const countStatements = new CompiledStatementCache<SqlStatement>();

/** The roles that decide `canRead`, as a key; computed once per principal object. */
const accessKeys = new WeakMap<Principal, string>();
function accessKey(principal: Principal): string {
  let key = accessKeys.get(principal);
  if (key === undefined) {
    key = principal.isAdministrator ? '*' : [...principal.roles].sort().join('\n');
    accessKeys.set(principal, key);
  }
  return key;
}

/** Each query's text, computed once per query object (listQueryOf hands out the same object for the same arguments). */
const queryKeys = new WeakMap<ListQuery, string>();
function queryKey(query: ListQuery): string {
  let key = queryKeys.get(query);
  if (key === undefined) {
    key = JSON.stringify(query);
    queryKeys.set(query, key);
  }
  return key;
}

/**
 * Everything a plan depends on besides the metadata (which the cache is keyed on): the query and
 * how it is answered, the permission scope (its condition, the roles behind its field check) and
 * the settings the compiler reads. Compiling is a pure function of these.
 */
function planKey(ctx: DocContext, query: string, scope: PermissionScope, today: string, how: string): string {
  const parent = scope.parentRestrict?.condition ?? null;
  const links = scope.linkRestrictions ? [...scope.linkRestrictions] : null;
  // The query's text is JSON already: led by its length rather than quoted again inside the array,
  // which escaped each of its quotes on every request, the key stays unambiguous.
  const rest = JSON.stringify([how, scope.restrict ?? null, parent, links, scope.subject, accessKey(ctx.principal), ctx.settings.timeZone, today]);
  return `${query.length}:${query}${rest}`;
}

/** A Single has one document, read by name: listing it is refused (417), after the read check (403). */
async function refuseSingleList(pc: PermissionContext, meta: Meta): Promise<never> {
  if (!(await mayUseDocType(pc, meta, 'read'))) throw permissionDenied(pc.principal, meta, 'read');
  throw new DataError(`${meta.name} is a Single DocType: read its one document at /api/resource/${meta.name}/${meta.name}`, {
    doctype: meta.name,
  });
}

/**
 * The rows and fields a principal may see, filtered in SQL (docs/api.md "Lists", see listRestriction).
 * A child DocType is listed through its parent (`parent=<DocType>`), under the parent's
 * permissions: when the parent's rows are restricted for the principal (if_owner, User
 * Permissions, permission hooks, shares), only rows of the parents they may read are listed.
 */
function permissionScope(ctx: DocContext, meta: Meta, query: ListQuery): MaybePromise<PermissionScope> {
  return andThen(ownScope(ctx, meta, query.parent), (scope) =>
    andThen(linkJoinRestrictions(permissionContext(ctx), meta, query), (links) => (links.size === 0 ? scope : { ...scope, linkRestrictions: links })),
  );
}

/** The checks of a list that need nothing of its query: the DocType may be listed, by this caller, with this `parent`. */
export function ownScope(ctx: DocContext, meta: Meta, parent: unknown): MaybePromise<PermissionScope> {
  const pc = permissionContext(ctx);
  if (meta.isSingle) return refuseSingleList(pc, meta);
  if (!meta.isChild) {
    return andThen(listRestriction(pc, meta), (restrict) => ({ restrict, canRead: () => listFieldAccess(ctx.principal, meta, meta), subject: meta.name }));
  }
  return childScope(ctx, pc, meta, parent);
}

/** A child DocType's scope: listed through its parent (`parent=<DocType>`), under the parent's permissions. */
async function childScope(ctx: DocContext, pc: PermissionContext, meta: Meta, parent: unknown): Promise<PermissionScope> {
  if (typeof parent !== 'string' || parent === '') {
    throw new DataError(`${meta.name} is a child table: pass parent=<parent DocType> to list it`);
  }
  const subject = ctx.metas.get(parent);
  if (!subject.tableFields.some((f) => f.def.options === meta.name)) {
    throw new DataError(`${parent} has no child table of ${meta.name}`);
  }
  const byParent = await listRestriction(pc, subject);
  return {
    restrict: { field: { field: 'parenttype' }, op: '=', value: parent },
    canRead: () => listFieldAccess(ctx.principal, subject, meta),
    subject: subject.name,
    ...(byParent === undefined ? {} : { parentRestrict: { meta: subject, condition: byParent } }),
  };
}

/**
 * Checks permissions and compiles a list query (docs/api.md "Lists") without running it. Queries
 * of client arguments come through listQueryAfterAccess (list-access.ts), so that permission
 * errors come before parameter errors, as in the reference.
 */
export function planList(ctx: DocContext, parsed: ListQuery, options: ListOptions = {}): MaybePromise<ListPlan> {
  const meta = ctx.metas.get(parsed.doctype);
  return andThen(permissionScope(ctx, meta, parsed), (scope) => planInScope(ctx, meta, parsed, options, scope));
}

/** The plan of a list whose permission scope is known: compiled once per distinct request (see listPlans). */
function planInScope(ctx: DocContext, meta: Meta, parsed: ListQuery, options: ListOptions, scope: PermissionScope): ListPlan {
  const today = currentDate(ctx.settings.timeZone);
  const how = `${options.nextPage ? 'next' : ''}:${options.defaultDirection ?? 'asc'}`;
  return listPlans.get(meta, planKey(ctx, queryKey(parsed), scope, today, how), () => {
    const probeNext = options.nextPage === true && parsed.pageLength > 0;
    const query: ListQuery = probeNext ? { ...parsed, pageLength: parsed.pageLength + 1 } : parsed;
    const compiled = compileListQuery(query, { ...compileContext(ctx, meta, scope, today), defaultDirection: options.defaultDirection ?? 'asc' });
    const { statement, columns, children, nameColumn } = compiled;
    const inPlace = children.length === 0 && shapesInPlace(columns, parsed.asDict);
    return { statement, columns, asDict: parsed.asDict, pageLength: parsed.pageLength, probeNext, children, ...(nameColumn ? { nameColumn } : {}), inPlace };
  });
}

function compileContext(ctx: DocContext, meta: Meta, scope: PermissionScope, today: string): CompileContext {
  return {
    meta,
    metaOf: (d) => ctx.metas.get(d),
    dialect: ctx.dialect,
    timeZone: ctx.settings.timeZone,
    today,
    restrict: scope.restrict,
    canRead: scope.canRead(),
    ...(scope.parentRestrict ? { parentRestrict: scope.parentRestrict } : {}),
    ...(scope.linkRestrictions ? { linkRestrictions: scope.linkRestrictions } : {}),
  };
}

/** The page's driver rows with their nested child rows read, when the plan has any. */
async function withChildren(ctx: DocContext, plan: ListPlan, rows: Row[]): Promise<Row[]> {
  if (plan.children.length === 0 || plan.nameColumn === undefined) return rows;
  return withChildRows(ctx.q, ctx.dialect, plan.children, plan.nameColumn, rows, plan.asDict);
}

/** Runs a planned list and returns its page: at once where the statement answers at once and no child rows are read. */
export function runList(ctx: DocContext, plan: ListPlan): MaybePromise<ListResult> {
  return andThen(statementRows(ctx.q, plan.statement), (stored) => {
    const hasNextPage = plan.probeNext && stored.length > plan.pageLength;
    const driver = hasNextPage ? stored.slice(0, plan.pageLength) : stored;
    if (plan.inPlace) return { rows: shapeInPlace(driver, plan.columns), hasNextPage };
    if (plan.children.length === 0) return { rows: shapeRows(driver, plan.columns, plan.asDict), hasNextPage };
    return withChildren(ctx, plan, driver).then((page) => ({ rows: shapeRows(page, plan.columns, plan.asDict), hasNextPage }));
  });
}

/**
 * The rows of a planned list one at a time, straight from a database cursor, shaped as
 * {@link runList} shapes them: for lists too large to hold in memory (every row, `pageLength` 0).
 * The caller must consume them inside the unit of work that `ctx` belongs to.
 */
export function listRows(ctx: DocContext, plan: ListPlan): AsyncIterable<ShapedRow> {
  // Child rows need statements of their own, which cannot run while the cursor holds the
  // connection: such a list is read as one page first.
  if (plan.children.length > 0) return pageAsStream(ctx, plan);
  return shapeRowStream(ctx.q.iterate(plan.statement), plan.columns, plan.asDict);
}

async function* pageAsStream(ctx: DocContext, plan: ListPlan): AsyncIterable<ShapedRow> {
  yield* (await runList(ctx, plan)).rows as ShapedRow[];
}

/** Lists the documents of a query (docs/api.md "Lists"). */
export async function listDocuments(ctx: DocContext, query: ListQuery, options: ListOptions = {}): Promise<ListResult> {
  return runList(ctx, await planList(ctx, query, options));
}

/**
 * Counts the documents matching the query's `filters` and `or_filters` that the principal may see:
 * at once where the permission scope and the statement answer at once, as a list page does.
 */
export function countDocuments(ctx: DocContext, query: ListQuery): MaybePromise<number> {
  const meta = ctx.metas.get(query.doctype);
  return andThen(permissionScope(ctx, meta, query), (scope) => {
    const today = currentDate(ctx.settings.timeZone);
    const key = JSON.stringify([query.filters, query.orFilters, query.parent ?? null]);
    const statement = countStatements.get(meta, planKey(ctx, key, scope, today, 'count'), () =>
      compileCountQuery(query, compileContext(ctx, meta, scope, today)),
    );
    return andThen(statementRows<Record<string, unknown>>(ctx.q, statement), (rows) => Number(Object.values(rows[0] ?? {})[0] ?? 0));
  });
}
