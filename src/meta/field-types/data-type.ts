import type { DocField } from '../doctype.js';
import { validateDataOption } from './data-options.js';
import type { FieldType } from './field-type.js';
import { sanitizeHtml } from './html-sanitizer.js';
import { createStringType } from './string-type.js';

// `Name <address>` looks like markup, so Email fields are validated instead of sanitised.
function sanitizeData(text: string, field: DocField): string {
  return (field.options ?? '').trim() === 'Email' ? text : sanitizeHtml(text);
}

/** Data: a short string, varchar(`length` or 140), checked by its `options` (Email, Phone, URL, Name, IBAN). */
export const dataType: FieldType = createStringType({
  name: 'Data',
  kind: 'varchar',
  transform: sanitizeData,
  check: validateDataOption,
});
