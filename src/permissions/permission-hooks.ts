import type { Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { Doc, PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { Condition } from '../query/list-query.js';

/** What a `has_permission` hook is asked: may `principal` use `right` on `doc`? */
export interface HasPermissionArgs {
  readonly doc: Doc;
  readonly meta: Meta;
  readonly right: PermissionType;
  readonly principal: Principal;
  /** The unit of work, for hooks that need to read the database. */
  readonly ctx: DocContext;
}

/**
 * A DocType's `has_permission` (docs/architecture.md "Permissions"): `false` denies, `true` or `undefined` leave the
 * decision to the role permissions. It runs only once the roles allow, so it can never widen access.
 */
export type HasPermissionHook = (args: HasPermissionArgs) => boolean | undefined | Promise<boolean | undefined>;

/** What a `permission_query_conditions` hook is asked: which rows of `meta` may `principal` list? */
export interface QueryConditionArgs {
  readonly meta: Meta;
  readonly principal: Principal;
  readonly ctx: DocContext;
}

/** A DocType's `permission_query_conditions`: a row condition ANDed into lists and counts, or none. */
export type PermissionQueryHook = (
  args: QueryConditionArgs,
) => Condition | undefined | Promise<Condition | undefined>;

/**
 * Permission hooks by DocType (`*` for every DocType). Built-in controllers (ToDo) and apps register
 * through the same calls; every hook registered for a DocType runs, and any one of them can deny.
 */
export class PermissionHooks {
  readonly #hasPermission = new Map<string, HasPermissionHook[]>();
  readonly #queryConditions = new Map<string, PermissionQueryHook[]>();

  /** Adds a `has_permission` hook for `doctype`. */
  onHasPermission(doctype: string, hook: HasPermissionHook): this {
    add(this.#hasPermission, doctype, hook);
    return this;
  }

  /** Adds a `permission_query_conditions` hook for `doctype`. */
  onQueryConditions(doctype: string, hook: PermissionQueryHook): this {
    add(this.#queryConditions, doctype, hook);
    return this;
  }

  /** False as soon as one hook for the document's DocType denies; true when none does. */
  async allows(args: HasPermissionArgs): Promise<boolean> {
    for (const hook of chain(this.#hasPermission, args.meta.name)) {
      if ((await hook(args)) === false) return false;
    }
    return true;
  }

  /** The conditions of every hook for the DocType, ANDed; undefined when no hook restricts. */
  async conditions(args: QueryConditionArgs): Promise<Condition | undefined> {
    const parts: Condition[] = [];
    for (const hook of chain(this.#queryConditions, args.meta.name)) {
      const condition = await hook(args);
      if (condition !== undefined) parts.push(condition);
    }
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : { and: parts };
  }
}

function add<T>(map: Map<string, T[]>, doctype: string, hook: T): void {
  const list = map.get(doctype) ?? [];
  list.push(hook);
  map.set(doctype, list);
}

/** Hooks for every DocType first, then the DocType's own, each in registration order. */
function chain<T>(map: ReadonlyMap<string, T[]>, doctype: string): T[] {
  return [...(map.get('*') ?? []), ...(map.get(doctype) ?? [])];
}
