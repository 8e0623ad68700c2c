import { DoesNotExistError, PermissionError } from '../errors/index.js';
import { definitionToDoc } from '../meta/doctype-document.js';
import type { DocTypeDef } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { mayUseDocType } from '../permissions/document-access.js';
import { isWithheld } from '../permissions/field-level.js';
import { permittedLevels } from '../permissions/role-permissions.js';
import type { DocContext } from './doc-context.js';
import { permissionContext } from './unit-permissions.js';

/*
 * A DocType's definition as the caller may see it (docs/api.md "API v2", DocType metadata): only
 * DocTypes they may read (by role or through a share), and without the fields above the
 * permlevels they may read, so metadata tells nothing the documents would not. A child DocType is
 * seen through the parents whose tables the caller may read, with those parents' levels.
 */

/** True when the caller may read documents of `meta` (a role grant, or shares of the DocType). */
export async function mayReadDocType(ctx: DocContext, meta: Meta): Promise<boolean> {
  return mayUseDocType(permissionContext(ctx), meta, 'read');
}

/** The DocType's document without the fields above the permlevels in `levels`. */
export function visibleDefinition(meta: Meta, levels: ReadonlySet<number>): Record<string, unknown> {
  const def: DocTypeDef = { ...meta.def, fields: meta.def.fields.filter((f) => !isWithheld(f, levels)) };
  return { ...definitionToDoc(def), doctype: 'DocType' };
}

/** The levels a child DocType's fields may be read at: those of every readable parent whose table field the caller sees. */
async function childLevels(ctx: DocContext, child: Meta): Promise<Set<number> | undefined> {
  let levels: Set<number> | undefined;
  for (const name of ctx.metas.names()) {
    const parent = ctx.metas.get(name);
    if (parent.isChild || !parent.tableFields.some((f) => f.def.options === child.name)) continue;
    if (!(await mayReadDocType(ctx, parent))) continue;
    const parentLevels = permittedLevels(ctx.principal, parent, 'read');
    if (parent.tableFields.every((f) => f.def.options !== child.name || isWithheld(f.def, parentLevels))) continue;
    levels = new Set([...(levels ?? []), ...parentLevels]);
  }
  return levels;
}

/**
 * The definition of `doctype` for the caller: 404 for an unknown DocType, 403 for one they may not
 * read (the same answers its documents give), else the definition without unreadable fields.
 */
export async function readableDefinition(ctx: DocContext, doctype: string): Promise<Record<string, unknown>> {
  if (!ctx.metas.has(doctype)) throw new DoesNotExistError(`DocType ${doctype.slice(0, 140)} not found`, { doctype });
  const meta = ctx.metas.get(doctype);
  const levels = meta.isChild ? await childLevels(ctx, meta) : (await mayReadDocType(ctx, meta)) ? permittedLevels(ctx.principal, meta, 'read') : undefined;
  if (levels === undefined) {
    throw new PermissionError('Not permitted', { doctype, messages: [{ message: `No permission to read ${doctype}`, title: 'Not permitted' }] });
  }
  return visibleDefinition(meta, levels);
}
