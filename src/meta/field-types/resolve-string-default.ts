import type { DocField } from '../doctype.js';
import type { FieldContext } from './field-type.js';

/** The one place `__user` defaults are resolved: any string-typed field with it gets the acting user. */
export function resolveStringDefault(text: string, _field: DocField, ctx: FieldContext): string {
  return text.trim() === '__user' ? ctx.user : text;
}
