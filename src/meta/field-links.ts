import type { Doc } from './doctype.js';
import type { ResolvedField } from './meta.js';

/** True for a field whose value names a document: a Link, or a Dynamic Link (its DocType in another field). */
export function isLinkField(field: ResolvedField): boolean {
  return field.type.options === 'doctype' || field.type.options === 'doctype-field';
}

/** The DocType a Link field always points at (its options), or undefined for every other field. */
export function fixedLinkTarget(field: ResolvedField): string | undefined {
  if (field.type.options !== 'doctype') return undefined;
  const target = field.def.options?.trim();
  return target === undefined || target === '' ? undefined : target;
}

/**
 * The DocType the link field `field` of `doc` points at: a Link's options, or the value of the
 * field a Dynamic Link's options name; undefined when there is none (or the field is no link).
 */
export function linkTarget(field: ResolvedField, doc: Doc): string | undefined {
  if (field.type.options === 'doctype') return fixedLinkTarget(field);
  if (field.type.options !== 'doctype-field') return undefined;
  const value = doc[field.def.options ?? ''];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
