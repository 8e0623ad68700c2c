import type { FieldType } from './field-type.js';
import { createStringType } from './string-type.js';

/** Password: a string the document layer keeps out of responses (it stores a mask, not the value). */
export const passwordType: FieldType = createStringType({ name: 'Password', kind: 'text', secret: true });
