import type { ColumnSpec } from '../../storage/dialect.js';
import type { DocField } from '../doctype.js';
import { assertMaxLength, coerceText } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';
import { resolveStringDefault } from './resolve-string-default.js';

/** Default varchar width when a field sets no `length` (the reference's varchar(140)). */
export const DEFAULT_VARCHAR_LENGTH = 140;

/** How one string-valued field type differs from the others. */
export interface StringTypeSpec {
  readonly name: string;
  readonly kind: 'varchar' | 'text';
  /**
   * True when `""` means "not set" and is stored as NULL (Select, Link, Dynamic Link). Other text
   * types keep `""` as the reference does; any type stores `""` as NULL on a `unique` field, so
   * several empty values never clash in the unique index.
   */
  readonly emptyToNull?: boolean;
  /** Rewrites the text before it is stored (HTML sanitising). */
  readonly transform?: (text: string, field: DocField) => string;
  /** Checks a non-empty stored text against the field's options. */
  readonly check?: (text: string, field: DocField) => void;
  /** Overrides the default "blank after trimming" emptiness test. */
  readonly isEmpty?: (value: unknown) => boolean;
  readonly secret?: boolean;
}

function isBlank(value: unknown): boolean {
  return typeof value === 'string' && value.trim() === '';
}

/** The width of a varchar field: its `length`, or 140. */
export function varcharLength(field: DocField): number {
  return field.length && field.length > 0 ? field.length : DEFAULT_VARCHAR_LENGTH;
}

/** Builds a field type whose values are strings, from the few ways string types differ. */
export function createStringType(spec: StringTypeSpec): FieldType {
  return {
    name: spec.name,
    emptyValue: '',
    ...(spec.secret ? { secret: true } : {}),
    column(field: DocField): ColumnSpec {
      return spec.kind === 'varchar' ? { kind: 'varchar', length: varcharLength(field) } : { kind: 'text' };
    },
    coerce(value, field) {
      const text = coerceText(value, field);
      if (text === null) return null;
      if (text === '') return spec.emptyToNull || field.unique ? null : '';
      return spec.transform ? spec.transform(text, field) : text;
    },
    validate(value, field) {
      if (typeof value !== 'string') return;
      if (spec.kind === 'varchar') assertMaxLength(value, field, varcharLength(field));
      if (value !== '' && spec.check) spec.check(value, field);
    },
    resolveDefault: resolveStringDefault,
    isEmpty: spec.isEmpty ?? isBlank,
  };
}
