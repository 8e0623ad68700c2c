import type { DocField } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';

/** The permlevel of a field; 0 for standard columns and names the DocType does not know. */
export function fieldLevel(meta: Meta, fieldname: string): number {
  return meta.field(fieldname)?.def.permlevel ?? 0;
}

/**
 * True when a field sits above permlevel 0 at a level outside `levels`. Level 0 is never withheld
 * by field rules: reaching the document at all is what decides it (docs/architecture.md "Permissions").
 */
export function isWithheld(def: DocField, levels: ReadonlySet<number>): boolean {
  const level = def.permlevel ?? 0;
  return level > 0 && !levels.has(level);
}
