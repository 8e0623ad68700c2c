import { ValidationError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import { fieldLabel } from './coerce-helpers.js';
import type { FieldType } from './field-type.js';
import { createStringType } from './string-type.js';

/** The choices of a Select field: its newline-separated `options`, trimmed, blank lines dropped. */
export function selectOptions(field: DocField): string[] {
  return (field.options ?? '')
    .split('\n')
    .map((o) => o.trim())
    .filter((o) => o !== '');
}

// A Select without choices takes any value, as in the reference.
function checkChoice(text: string, field: DocField): void {
  const choices = selectOptions(field);
  if (choices.length === 0 || choices.includes(text)) return;
  throw new ValidationError(`${fieldLabel(field)} cannot be "${text}". It should be one of "${choices.join('", "')}"`);
}

/** Select: one of the field's `options`; `""` means "not chosen" and is stored as NULL. */
export const selectType: FieldType = {
  ...createStringType({ name: 'Select', kind: 'varchar', emptyToNull: true, check: checkChoice }),
  options: 'choices',
  // A new document without a value starts on the first line of the options, as in the reference;
  // options that begin with a blank line start empty.
  initialValue: (field) => (field.options ?? '').split('\n')[0]?.trim() || undefined,
};
