import type { Principal } from '../auth/principal.js';
import type { Doc, PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { Condition } from '../query/list-query.js';
import type { MaybePromise } from '../async/maybe-promise.js';

/** What a `has_permission` hook is asked: may `principal` use `right` on `doc`? */
/*
 * `Ctx` is the unit of work the hooks are handed (the document layer's DocContext): permissions/ only
 * passes it on, so it names no type of the layers above it (docs/architecture.md "Permissions").
 */

export interface HasPermissionArgs<Ctx = unknown> {
  readonly doc: Doc;
  readonly meta: Meta;
  readonly right: PermissionType;
  readonly principal: Principal;
  /** The unit of work, for hooks that need to read the database. */
  readonly ctx: Ctx;
}

/**
 * A DocType's `has_permission` (docs/architecture.md "Permissions"): `false` denies, `true` or `undefined` leave the
 * decision to the role permissions. It runs only once the roles allow, so it can never widen access.
 */
export type HasPermissionHook<Ctx = unknown> = (args: HasPermissionArgs<Ctx>) => boolean | undefined | Promise<boolean | undefined>;

/** What a `permission_query_conditions` hook is asked: which rows of `meta` may `principal` list? */
export interface QueryConditionArgs<Ctx = unknown> {
  readonly meta: Meta;
  readonly principal: Principal;
  readonly ctx: Ctx;
}

/** A DocType's `permission_query_conditions`: a row condition ANDed into lists and counts, or none. */
export type PermissionQueryHook<Ctx = unknown> = (args: QueryConditionArgs<Ctx>) => Condition | undefined | Promise<Condition | undefined>;

/** Whether the hooks from `from` on allow: without waiting until one of them answers with a promise. */
function allowedFrom<Ctx>(hooks: readonly HasPermissionHook<Ctx>[], from: number, args: HasPermissionArgs<Ctx>): MaybePromise<boolean> {
  for (let i = from; i < hooks.length; i++) {
    const answer = hooks[i]!(args);
    if (answer instanceof Promise) return answer.then((a) => a !== false && allowedFrom(hooks, i + 1, args));
    if (answer === false) return false;
  }
  return true;
}

/** The conditions of the hooks from `from` on, added to `parts`: without waiting until a hook answers with a promise. */
function conditionsFrom<Ctx>(
  hooks: readonly PermissionQueryHook<Ctx>[],
  from: number,
  args: QueryConditionArgs<Ctx>,
  parts: Condition[],
): MaybePromise<Condition | undefined> {
  for (let i = from; i < hooks.length; i++) {
    const answer = hooks[i]!(args);
    if (answer instanceof Promise) {
      return answer.then((condition) => {
        if (condition !== undefined) parts.push(condition);
        return conditionsFrom(hooks, i + 1, args, parts);
      });
    }
    if (answer !== undefined) parts.push(answer);
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { and: parts };
}

/** What permission decisions ask of the hooks (method syntax: a registry of any unit type serves). */
export interface PermissionHookRunner<Ctx = unknown> {
  allows(args: HasPermissionArgs<Ctx>): MaybePromise<boolean>;
  conditions(args: QueryConditionArgs<Ctx>): MaybePromise<Condition | undefined>;
}

/**
 * Permission hooks by DocType (`*` for every DocType). Built-in controllers (ToDo) and apps register
 * through the same calls; every hook registered for a DocType runs, and any one of them can deny.
 */
export class PermissionHooks<Ctx = unknown> implements PermissionHookRunner<Ctx> {
  readonly #hasPermission = new HooksByDocType<HasPermissionHook<Ctx>>();
  readonly #queryConditions = new HooksByDocType<PermissionQueryHook<Ctx>>();

  /** Adds a `has_permission` hook for `doctype`. */
  onHasPermission(doctype: string, hook: HasPermissionHook<Ctx>): this {
    this.#hasPermission.add(doctype, hook);
    return this;
  }

  /** Adds a `permission_query_conditions` hook for `doctype`. */
  onQueryConditions(doctype: string, hook: PermissionQueryHook<Ctx>): this {
    this.#queryConditions.add(doctype, hook);
    return this;
  }

  /** False as soon as one hook for the document's DocType denies; true when none does. */
  allows(args: HasPermissionArgs<Ctx>): MaybePromise<boolean> {
    return allowedFrom(this.#hasPermission.for(args.meta.name), 0, args);
  }

  /** The conditions of every hook for the DocType, ANDed; undefined when no hook restricts. At once when no hook waits. */
  conditions(args: QueryConditionArgs<Ctx>): MaybePromise<Condition | undefined> {
    return conditionsFrom(this.#queryConditions.for(args.meta.name), 0, args, []);
  }
}

/** Hooks by DocType, `*` for every DocType; each DocType's list made once (until a hook is added). */
class HooksByDocType<T> {
  readonly #own = new Map<string, T[]>();
  readonly #lists = new Map<string, readonly T[]>();

  add(doctype: string, hook: T): void {
    const own = this.#own.get(doctype) ?? [];
    own.push(hook);
    this.#own.set(doctype, own);
    this.#lists.clear();
  }

  /** Hooks for every DocType first, then the DocType's own, each in registration order. */
  for(doctype: string): readonly T[] {
    let list = this.#lists.get(doctype);
    if (!list) {
      list = [...(this.#own.get('*') ?? []), ...(this.#own.get(doctype) ?? [])];
      this.#lists.set(doctype, list);
    }
    return list;
  }
}
