import type { ColumnSpec } from '../../storage/dialect.js';
import type { DocField } from '../doctype.js';

/** What a field type may need to know about the write it is part of. */
export interface FieldContext {
  /** The DocType being written, for messages ("Value missing for ToDo: Description"). */
  readonly doctype: string;
  /** The site's IANA time zone, for `Today` and `now`. */
  readonly timeZone: string;
  /** The acting user, for the `__user` default. */
  readonly user: string;
}

/** What a DocField's `options` names, by field type (see {@link FieldType.options}). */
export type FieldOptions = 'doctype' | 'doctype-field' | 'child-doctype' | 'choices';

/**
 * One field type: how its values are stored, coerced from JSON, validated and returned.
 * Each type lives in its own file and is registered explicitly in index.ts.
 */
export interface FieldType {
  /** The fieldtype as it appears in DocField rows, e.g. `Data`, `Long Int`. */
  readonly name: string;
  /** How the column is declared, or undefined for types that store nothing (layout, tables). */
  column(field: DocField): ColumnSpec | undefined;
  /**
   * Turns an incoming value (JSON or form string) into the value to store, or `null` when empty.
   * Throws a 417 error (FrappeTypeError, ValidationError...) for a value of the wrong shape.
   */
  coerce(value: unknown, field: DocField, ctx: FieldContext): unknown;
  /** Checks a coerced, non-null value against the field's options (Select choices, Email...). */
  validate?(value: unknown, field: DocField, ctx: FieldContext): void;
  /** Turns a value read from the database into its JSON form (numbers, normalised timestamps). */
  fromDb?(value: unknown, field: DocField): unknown;
  /** Resolves a DocField `default` string (`Today`, `now`, `1`...) into a value to coerce. */
  resolveDefault?(text: string, field: DocField, ctx: FieldContext): unknown;
  /** True when a stored value counts as missing for `reqd` (beyond null). */
  isEmpty?(value: unknown): boolean;
  /** For `!=`, `not in` and comparisons: the empty value NULL stands for (docs/api.md "Lists"). */
  readonly emptyValue?: string | number;
  /** True for types whose values are numbers (Int, Float, Check...). */
  readonly numeric?: boolean;
  /** True for types that hold child rows (Table, Table MultiSelect). */
  readonly isTable?: boolean;
  /**
   * What the DocField's `options` holds for this type, so no caller compares fieldtype strings:
   * the DocType linked to (Link), the field holding the linked DocType (Dynamic Link), the child
   * DocType (tables), or newline-separated choices (Select). Undefined: free text or nothing.
   */
  readonly options?: FieldOptions;
  /** True when every value is an answer (Check: 0 is "no"), so `reqd` never finds it missing. */
  readonly alwaysAnswered?: boolean;
  /** The value a new document gets when the client sent none and the field has no default (Select: its first choice). */
  initialValue?(field: DocField): unknown;
  /** True when values must never be returned in clear (Password). */
  readonly secret?: boolean;
}
