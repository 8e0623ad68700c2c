/**
 * The short string types with no rules of their own beyond the column width (Link and Dynamic Link
 * targets are checked by the document layer, which knows the database).
 */
import { validatePhone } from './data-options.js';
import type { FieldType } from './field-type.js';
import { createStringType } from './string-type.js';

/** Phone: a varchar holding digits and phone punctuation. */
export const phoneType: FieldType = createStringType({ name: 'Phone', kind: 'varchar', check: validatePhone });

/** Link: the name of a document of the `options` DocType; `""` is "no link" and stored as NULL. */
export const linkType: FieldType = { ...createStringType({ name: 'Link', kind: 'varchar', emptyToNull: true }), options: 'doctype' };

/** Dynamic Link: a document name whose DocType another field holds; `""` is stored as NULL. */
export const dynamicLinkType: FieldType = {
  ...createStringType({ name: 'Dynamic Link', kind: 'varchar', emptyToNull: true }),
  options: 'doctype-field',
};

/** Autocomplete, Icon, Read Only, Color, Barcode: plain varchar strings. */
export const plainVarcharTypes: readonly FieldType[] = ['Autocomplete', 'Icon', 'Read Only', 'Color', 'Barcode'].map((name) =>
  createStringType({ name, kind: 'varchar' }),
);
