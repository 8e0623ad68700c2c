import type { FieldType } from './field-type.js';
import { createStringType } from './string-type.js';

/**
 * What a set Password field holds and answers: always the same eight asterisks, so no answer tells
 * how long the secret is (docs/api.md "Documents"; the reference stores one asterisk per
 * character). The value itself lives encrypted in __Auth (documents/secret-fields.ts).
 */
export const PASSWORD_MASK = '********';

const stringType = createStringType({ name: 'Password', kind: 'text', secret: true });

/**
 * Password: a string the document layer keeps out of responses (it stores the mask, not the
 * value). A mask stored by an older fw, one asterisk per character, is answered as the fixed one.
 */
export const passwordType: FieldType = {
  ...stringType,
  fromDb: (value) => (typeof value === 'string' && value !== '' ? PASSWORD_MASK : value),
};
