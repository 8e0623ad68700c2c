import { DuplicateEntryError, LinkExistsError, ValidationError } from '../errors/index.js';
import { docToDefinition } from '../meta/doctype-document.js';
import { definitionProblem } from '../meta/check-definition.js';
import type { Doc, DocTypeDef } from '../meta/doctype.js';
import { Meta } from '../meta/meta.js';
import { dropTable, syncTable } from '../meta/schema-sync.js';
import { columnCanBecome } from '../meta/column-change.js';
import { fieldsBecomingMarkup, sanitizeValuesBecomingMarkup } from '../meta/markup-type-change.js';
import type { FieldTypeRegistry } from '../meta/field-types/registry.js';
import { applyDefaults, coerceFields } from '../documents/build-document.js';
import { DocumentRepository } from '../documents/document-repository.js';
import type { HookArgs, HookRegistry } from '../documents/hooks.js';

/**
 * Refuses a field type change whose stored values would need converting (text to number, say):
 * the column keeps its type, so the change is answered before anything is stored.
 */
function checkTypeChanges(before: DocTypeDef, after: DocTypeDef, types: FieldTypeRegistry): void {
  const previous = new Map(before.fields.map((f) => [f.fieldname, f]));
  for (const f of after.fields) {
    const old = previous.get(f.fieldname);
    if (!old || old.fieldtype === f.fieldtype || !types.has(old.fieldtype) || !types.has(f.fieldtype)) continue;
    const from = types.get(old.fieldtype).column(old);
    const to = types.get(f.fieldtype).column(f);
    if (from && to && !columnCanBecome(from, to)) {
      throw new ValidationError(
        `Field ${f.fieldname}: its type cannot change from ${old.fieldtype} to ${f.fieldtype}, since the values it holds ` +
          `would need converting. Add a new field of type ${f.fieldtype} instead.`,
      );
    }
  }
}

/** Checks a definition before it is stored (meta/check-definition.ts, shared with apps' DocTypes). */
function checkDefinition(def: DocTypeDef, { ctx }: HookArgs): void {
  const problem = definitionProblem(def, {
    types: ctx.metas.types,
    doctype: (name) => (ctx.metas.has(name) ? ctx.metas.get(name).def : undefined),
  });
  if (problem !== undefined) throw new ValidationError(problem);
}

/**
 * Refuses a new DocType whose name differs from an existing one only in case: SQLite compares
 * table names without regard to case, so `note` would share `tabNote` (docs/security.md).
 */
function checkNameIsFree(def: DocTypeDef, { ctx }: HookArgs): void {
  const wanted = def.name.toLowerCase();
  const taken = ctx.metas.names().find((n) => n.toLowerCase() === wanted);
  if (taken !== undefined) {
    throw new DuplicateEntryError(`DocType ${def.name} cannot be created: DocType ${taken} exists`, { doctype: 'DocType' });
  }
}

/**
 * A DocType only ever gets a table it creates itself: when a save would give it a table (a new
 * DocType, or a Single becoming a regular one) and a table of that name is already there (left by
 * something else, or an internal table of an older site), the save is refused rather than the
 * table adopted with whatever it holds (docs/security.md, "Internal tables").
 */
async function checkTableIsOurs(def: DocTypeDef, { ctx, before }: HookArgs): Promise<void> {
  const hadTable = before !== undefined && Number(before.issingle) !== 1;
  if (hadTable || def.issingle === 1) return;
  const table = new Meta(def, ctx.metas.types).tableName;
  if ((await ctx.dialect.listColumns(ctx.q, table)).length > 0) {
    throw new DuplicateEntryError(`DocType ${def.name} cannot be created: a table named ${table} already exists`, {
      doctype: 'DocType',
    });
  }
}

/**
 * A submittable DocType records amendments (docs/architecture.md "Submittable DocTypes"): it gets an `amended_from` field,
 * a read-only Link to itself that is not copied, unless the definition already has one.
 */
function addAmendedFrom({ doc, ctx }: HookArgs): void {
  if (Number(doc.is_submittable) !== 1 || Number(doc.istable) === 1 || Number(doc.issingle) === 1) return;
  const fields = Array.isArray(doc.fields) ? (doc.fields as Doc[]) : [];
  if (fields.some((f) => f.fieldname === 'amended_from')) return;
  const row: Doc = { fieldname: 'amended_from', label: 'Amended From', fieldtype: 'Link', options: String(doc.name), read_only: 1, no_copy: 1 };
  // The row is built like one the client sent: DocField defaults, stored forms.
  const docField = ctx.metas.get('DocField');
  const fieldContext = { doctype: docField.name, timeZone: ctx.settings.timeZone, user: ctx.principal.user };
  applyDefaults(docField, row, fieldContext);
  coerceFields(docField, row, fieldContext, (d) => ctx.metas.get(d));
  doc.fields = [...fields, row];
}

/**
 * DocType is itself a DocType: saving one validates the definition, brings its table in line and
 * tells every process to reload metadata; deleting one is refused while it holds documents.
 */
export function registerDocTypeController(hooks: HookRegistry): void {
  hooks.on('DocType', 'before_insert', async ({ doc }, next) => {
    doc.custom = 1;
    if (!doc.module) doc.module = 'Custom';
    await next();
  });

  hooks.on('DocType', 'before_validate', async (args, next) => {
    addAmendedFrom(args);
    await next();
  });

  hooks.on('DocType', 'validate', async (args, next) => {
    if (args.before && args.before.custom !== 1) {
      throw new ValidationError(`${String(args.doc.name)} is a built-in DocType and cannot be changed through the API`);
    }
    const def = docToDefinition(args.doc);
    checkDefinition(def, args);
    if (args.before) checkTypeChanges(docToDefinition(args.before), def, args.ctx.metas.types);
    else checkNameIsFree(def, args);
    await checkTableIsOurs(def, args);
    await next();
  });

  hooks.on('DocType', 'on_update', async ({ doc, before, ctx }, next) => {
    const meta = new Meta(docToDefinition(doc), ctx.metas.types);
    await syncTable(ctx.q, ctx.dialect, meta);
    // A field now shown as markup keeps none it would refuse on save (docs/security.md "Stored markup").
    if (before) await sanitizeValuesBecomingMarkup(ctx.q, ctx.dialect, meta, fieldsBecomingMarkup(docToDefinition(before), meta.def));
    await ctx.metas.bumpVersion(ctx.q);
    await next();
  });

  hooks.on('DocType', 'on_trash', async ({ doc, ctx }, next) => {
    if (doc.custom !== 1) throw new ValidationError(`${String(doc.name)} is a built-in DocType and cannot be deleted`);
    const meta = new Meta(docToDefinition(doc), ctx.metas.types);
    const users = ctx.metas
      .names()
      .filter((n) => n !== meta.name)
      .map((n) => ctx.metas.get(n))
      .filter((m) => m.tableFields.some((f) => f.def.options === meta.name));
    if (users.length > 0) {
      throw new LinkExistsError(`Cannot delete ${meta.name}: it is a child table of ${users.map((m) => m.name).join(', ')}`);
    }
    if (!meta.isSingle) {
      const repo = new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d));
      const count = await repo.count(ctx.q, meta);
      if (count > 0) {
        throw new LinkExistsError(`Cannot delete DocType ${meta.name}: it still holds ${count} document${count === 1 ? '' : 's'}. Delete them first.`);
      }
    }
    await dropTable(ctx.q, ctx.dialect, meta);
    await ctx.metas.bumpVersion(ctx.q);
    await next();
  });
}
