import type { FieldType } from './field-type.js';

/** The layout field types: they arrange the form and store nothing. */
export const LAYOUT_FIELD_TYPES = ['Section Break', 'Column Break', 'Tab Break', 'HTML', 'Heading', 'Button', 'Image', 'Fold'] as const;

/** A field type with no column whose values are dropped. */
export function createLayoutType(name: string): FieldType {
  return { name, column: () => undefined, coerce: () => undefined };
}

/** Every layout field type. */
export const layoutTypes: readonly FieldType[] = LAYOUT_FIELD_TYPES.map(createLayoutType);
