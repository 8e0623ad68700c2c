/*
 * The typed form of a list request (docs/api.md "Lists"): what parse-list-params.ts builds from raw
 * arguments and compile-list-query.ts turns into SQL. Nothing here has been checked against
 * metadata yet; names are only known to have a safe shape.
 */

/** Every filter operator, in canonical lower-case form (`=<`/`=>` are read as `<=`/`>=`). */
export const OPERATORS = ['=', '!=', '<', '>', '<=', '>=', 'like', 'not like', 'in', 'not in', 'is', 'between', 'timespan', 'previous', 'next'] as const;

/** A filter operator. */
export type Operator = (typeof OPERATORS)[number];

/**
 * A reference to a column. `field` alone names a column of the listed DocType; `via` reaches a
 * column through one of its Link or Table fields (`via.field`); `doctype` names the DocType the
 * column belongs to (a 4-item filter or `` `tabX`.field ``), which must be the listed DocType or
 * one of its child DocTypes.
 */
export interface FieldRef {
  readonly doctype?: string;
  readonly via?: string;
  readonly field: string;
}

/** One filter, or a group of them joined by AND or OR, or the permission layer's share condition. */
export type Condition =
  | { readonly field: FieldRef; readonly op: Operator; readonly value: unknown }
  | { readonly and: readonly Condition[] }
  | { readonly or: readonly Condition[] }
  | { readonly sharedWith: SharedRows };

/**
 * The rows of `doctype` shared for reading with `user`, and with everyone unless `everyone` is
 * false (Guest). Only the permission layer makes it (permissions/list-restriction.ts); it compiles
 * to a subquery of the share table, so a list costs no statement of its own to read the shares.
 */
export interface SharedRows {
  readonly doctype: string;
  readonly user: string;
  readonly everyone: boolean;
}

/** The parts of an AND/OR group; none for a leaf or a share condition. */
export function conditionParts(c: Condition): readonly Condition[] {
  return 'and' in c ? c.and : 'or' in c ? c.or : [];
}

/** The aggregate functions a select item may apply. */
export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;

/** An aggregate function. */
export type Aggregate = (typeof AGGREGATES)[number];

/** One item of the select list. */
export type SelectItem =
  /** `*`: every column of the listed DocType. */
  | { readonly kind: 'all' }
  /** A column, optionally renamed. */
  | { readonly kind: 'field'; readonly ref: FieldRef; readonly alias?: string }
  /** `count(*)`, `sum(field)`...; `arg` undefined means `*` (count only). */
  | { readonly kind: 'aggregate'; readonly fn: Aggregate; readonly arg?: FieldRef; readonly alias?: string }
  /**
   * `{"items": ["item_code", "qty"]}`: the rows of the Table field `table`, as a nested array on
   * each result row, with the listed columns of the child DocType (`*` or fields, optionally renamed).
   */
  | { readonly kind: 'children'; readonly table: string; readonly fields: readonly ChildSelectItem[] };

/** What the nested child-rows form may select: every column, or columns of the child DocType. */
export type ChildSelectItem = Extract<SelectItem, { kind: 'all' } | { kind: 'field' }>;

/** One ORDER BY term; a missing direction takes the API version's default. */
export interface OrderTerm {
  readonly field: FieldRef;
  readonly direction?: 'asc' | 'desc';
}

/** A list request in typed form. */
export interface ListQuery {
  readonly doctype: string;
  readonly fields: readonly SelectItem[];
  /** ANDed together. */
  readonly filters: readonly Condition[];
  /** ORed among themselves, then ANDed with `filters`; empty means no such group. */
  readonly orFilters: readonly Condition[];
  /** undefined: the DocType's default sort. */
  readonly orderBy: readonly OrderTerm[] | undefined;
  readonly groupBy: readonly FieldRef[];
  readonly start: number;
  /** 0 means no limit. */
  readonly pageLength: number;
  readonly asDict: boolean;
  /** For a child DocType: the parent DocType whose rows are listed (`parent`). */
  readonly parent?: string;
}

/** True for a leaf condition (as opposed to an AND/OR group). */
export function isLeaf(c: Condition): c is Extract<Condition, { field: FieldRef }> {
  return 'field' in c;
}

/** The text form of a reference, for messages: `field`, `via.field` or `DocType.field`. */
export function refText(ref: FieldRef): string {
  if (ref.via !== undefined) return `${ref.via}.${ref.field}`;
  if (ref.doctype !== undefined) return `${ref.doctype}.${ref.field}`;
  return ref.field;
}
