import { checkType } from './check-type.js';
import { dataType } from './data-type.js';
import { dateType } from './date-type.js';
import { datetimeType } from './datetime-type.js';
import { durationType, floatTypes, ratingType } from './float-types.js';
import { intType, longIntType } from './int-types.js';
import { jsonType } from './json-type.js';
import { layoutTypes } from './layout-types.js';
import { passwordType } from './password-type.js';
import { FieldTypeRegistry } from './registry.js';
import { selectType } from './select-type.js';
import { tableTypes } from './table-types.js';
import { textEditorType } from './text-editor-type.js';
import { attachTypes, sanitisedTextTypes, verbatimTextTypes } from './text-types.js';
import { timeType } from './time-type.js';
import { dynamicLinkType, linkType, phoneType, plainVarcharTypes } from './varchar-types.js';

/** A registry holding every built-in field type, registered explicitly (no import side effects). */
export function createFieldTypeRegistry(): FieldTypeRegistry {
  const registry = new FieldTypeRegistry();
  for (const type of [
    dataType,
    phoneType,
    linkType,
    dynamicLinkType,
    ...plainVarcharTypes,
    selectType,
    ...sanitisedTextTypes,
    ...verbatimTextTypes,
    ...attachTypes,
    textEditorType,
    passwordType,
    intType,
    longIntType,
    ...floatTypes,
    durationType,
    ratingType,
    checkType,
    dateType,
    datetimeType,
    timeType,
    jsonType,
    ...layoutTypes,
    ...tableTypes,
  ]) {
    registry.register(type);
  }
  return registry;
}
