import type { FieldType } from './field-type.js';
import { isEmptyMarkup, sanitizeHtml } from './html-sanitizer.js';
import { createStringType } from './string-type.js';

/**
 * Text Editor: rich text, sanitised so no script survives; a value of only empty markup
 * (`<p><br></p>`) counts as missing. Data-URL images are kept inline, not extracted into files.
 */
export const textEditorType: FieldType = createStringType({
  name: 'Text Editor',
  kind: 'text',
  transform: sanitizeHtml,
  isEmpty: isEmptyMarkup,
});
