import type { Doc } from '../meta/doctype.js';
import { isLinkField, linkTarget } from '../meta/field-links.js';
import type { Meta, ResolvedField } from '../meta/meta.js';
import { mayUseDocument } from '../permissions/document-access.js';
import { isWithheld } from '../permissions/field-level.js';
import { permissionContext } from './unit-permissions.js';
import { permittedLevels } from '../permissions/role-permissions.js';
import type { DocContext } from './doc-context.js';

/** The fields filled from one Link (or Dynamic Link) field, with the source field each copies. */
interface FetchGroup {
  readonly link: ResolvedField;
  readonly targets: readonly { readonly field: ResolvedField; readonly source: string }[];
}

/** Options of a fetch. */
export interface FetchOptions {
  /** On a submitted document only `allow_on_submit` fields may change, so only those are fetched. */
  readonly onlyAllowOnSubmit?: boolean;
}

const groupsByMeta = new WeakMap<Meta, readonly FetchGroup[]>();

/** The fetch groups of a DocType, computed once per compiled Meta. */
function fetchGroups(meta: Meta): readonly FetchGroup[] {
  const cached = groupsByMeta.get(meta);
  if (cached) return cached;
  const byLink = new Map<string, { link: ResolvedField; targets: { field: ResolvedField; source: string }[] }>();
  for (const field of meta.valueFields) {
    const spec = field.def.fetch_from?.trim() ?? '';
    const dot = spec.indexOf('.');
    if (dot <= 0 || dot === spec.length - 1) continue;
    const link = meta.field(spec.slice(0, dot));
    if (!link || !isLinkField(link)) continue;
    const group = byLink.get(link.def.fieldname) ?? { link, targets: [] };
    group.targets.push({ field, source: spec.slice(dot + 1) });
    byLink.set(link.def.fieldname, group);
  }
  const groups = [...byLink.values()];
  groupsByMeta.set(meta, groups);
  return groups;
}

/** Empty as `fetch_if_empty` means it (the reference's `not value`). */
function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || value === 0;
}

function text(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/**
 * Which targets of a group to fill: a `fetch_if_empty` field only while it is empty; the others
 * when the document is new or the link changed, so a value edited by hand survives later saves.
 */
function targetsToFill(group: FetchGroup, doc: Doc, before: Doc | undefined, opts: FetchOptions): FetchGroup['targets'] {
  const linkChanged =
    before === undefined ||
    text(before[group.link.def.fieldname]) !== text(doc[group.link.def.fieldname]) ||
    linkTarget(group.link, before) !== linkTarget(group.link, doc);
  return group.targets.filter(({ field }) => {
    if (opts.onlyAllowOnSubmit && field.def.allow_on_submit !== 1) return false;
    return field.def.fetch_if_empty === 1 ? isEmpty(doc[field.def.fieldname]) : linkChanged;
  });
}

/**
 * Copies the source values of the linked document into the targets; a missing document is left to
 * link validation. The copy is a read made on the caller's behalf, so it follows the caller's read
 * rules (docs/security.md "Fetched values"): a linked document they may not read gives nothing, and
 * a source field above their permlevels stays behind; such targets are emptied, never left holding
 * a value the client claimed came from the link.
 */
async function fill(ctx: DocContext, meta: Meta, doc: Doc, group: FetchGroup, targets: FetchGroup['targets']): Promise<void> {
  const doctype = linkTarget(group.link, doc);
  if (doctype === undefined || !ctx.metas.has(doctype)) return;
  const source = ctx.metas.get(doctype);
  if (source.isSingle) return;
  const present = targets.filter((t) => source.hasColumn(t.source));
  if (present.length === 0) return;
  const statement = ctx.dialect.builder.selectFrom(source.tableName).selectAll().where('name', '=', text(doc[group.link.def.fieldname])).limit(1).compile();
  const row = (await ctx.q.all(statement))[0];
  if (!row) return;
  const visible = await readableSources(ctx, source, row);
  const fieldContext = { doctype: meta.name, timeZone: ctx.settings.timeZone, user: ctx.principal.user };
  for (const { field, source: column } of present) {
    const sourceField = source.field(column);
    const raw = visible(column) ? row[column] : null;
    const value = raw === null || raw === undefined ? null : sourceField?.type.fromDb ? sourceField.type.fromDb(raw, sourceField.def) : raw;
    doc[field.def.fieldname] = field.type.coerce(value, field.def, fieldContext);
  }
}

/** Which columns of the linked row the principal may see: none of a row they may not read, none above their levels. */
async function readableSources(ctx: DocContext, source: Meta, row: Doc): Promise<(column: string) => boolean> {
  if (ctx.principal.isAdministrator) return () => true;
  if (!(await mayUseDocument(permissionContext(ctx), source, 'read', row))) return () => false;
  const levels = permittedLevels(ctx.principal, source, 'read');
  return (column) => {
    const def = source.field(column)?.def;
    return def === undefined || !isWithheld(def, levels);
  };
}

/**
 * Fills the `fetch_from` fields (`link_field.source_field`) of `doc` and its child rows from the
 * documents their links name (docs/architecture.md "The document pipeline", insert step 4): on insert, and on save when the link
 * changed; a `fetch_if_empty` field only while it is empty. `before` is the stored document
 * (undefined on insert); values are written in their stored form, so run this after coercion.
 */
export async function applyFetchFrom(ctx: DocContext, meta: Meta, doc: Doc, before: Doc | undefined, opts: FetchOptions = {}): Promise<void> {
  for (const group of fetchGroups(meta)) {
    if (text(doc[group.link.def.fieldname]) === '') continue;
    const targets = targetsToFill(group, doc, before, opts);
    if (targets.length > 0) await fill(ctx, meta, doc, group, targets);
  }
  for (const tf of meta.tableFields) {
    const rows = doc[tf.def.fieldname];
    if (!Array.isArray(rows) || !tf.def.options || !ctx.metas.has(tf.def.options)) continue;
    const childMeta = ctx.metas.get(tf.def.options);
    if (fetchGroups(childMeta).length === 0) continue;
    const storedRows = Array.isArray(before?.[tf.def.fieldname]) ? (before[tf.def.fieldname] as Doc[]) : [];
    for (const row of rows as Doc[]) {
      const storedRow = storedRows.find((r) => r.name !== undefined && r.name === row.name);
      await applyFetchFrom(ctx, childMeta, row, storedRow, opts);
    }
  }
}
