import { LinkExistsError } from '../../errors/index.js';
import type { Meta } from '../../meta/meta.js';
import type { DocContext } from '../doc-context.js';
import type { DocStatus } from '../docstatus-transitions.js';
import { linkPathsTo, type LinkPath } from './link-paths.js';
import { readSingleValues } from '../singles/single-values.js';

/**
 * DocTypes whose links never hold a document back (the reference's `ignore_links_on_delete` among
 * the DocTypes fw has): archives and history (Version, Deleted Document), and notes about a
 * document that go with it (ToDo assignments, DocShare grants, File attachments, Comments, and the
 * tags and follows of docs/collaboration.md, which go with it when it is deleted).
 */
export const IGNORED_DOCTYPES: readonly string[] = ['Version', 'Deleted Document', 'ToDo', 'DocShare', 'File', 'Comment', 'Tag Link', 'Document Follow'];

/** How many referrers a search reports at most: the first is named, a few are enough to act on. */
const DEFAULT_LIMIT = 3;

/** A document that links to the one searched for; for a child row, the parent document. */
export interface Referrer {
  readonly doctype: string;
  readonly name: string;
  readonly docstatus: number;
  /** The field holding the link (`table.field` when it sits in a child row). */
  readonly field: string;
}

/** Narrowing of a referrer search. */
export interface ReferrerSearch {
  /** Only referrers in this state (a cancel is held back only by submitted documents). */
  readonly docstatus?: DocStatus;
  /** Link fields not to follow, by fieldname (a cancel ignores `amended_from`). */
  readonly ignoreFields?: ReadonlySet<string>;
  /** Stop after this many referrers (default 3). */
  readonly limit?: number;
}

/** The field a child row's link sits in, as `table.field` of its parent. */
function childFieldLabel(ctx: DocContext, parenttype: string, childMeta: Meta, fieldname: string): string {
  const table = ctx.metas.has(parenttype) ? ctx.metas.get(parenttype).tableFields.find((f) => f.def.options === childMeta.name)?.def.fieldname : undefined;
  return table ? `${table}.${fieldname}` : fieldname;
}

/** Referrers through one field of a table-backed DocType, at most `limit`, in one compiled query. */
async function tableReferrers(ctx: DocContext, path: LinkPath, target: Meta, name: string, search: ReferrerSearch, limit: number): Promise<Referrer[]> {
  const { meta } = path;
  let query = ctx.dialect.builder
    .selectFrom(meta.tableName)
    .select(meta.isChild ? ['name', 'docstatus', 'parent', 'parenttype'] : ['name', 'docstatus'])
    .where(path.fieldname, '=', name);
  if (path.typeField) query = query.where(path.typeField, '=', target.name);
  if (search.docstatus !== undefined) query = query.where('docstatus', '=', search.docstatus);
  if (meta.isChild) {
    // The document's own rows and rows kept by ignored DocTypes do not count.
    query = query.where((eb) => eb.not(eb.and([eb('parenttype', '=', target.name), eb('parent', '=', name)]))).where('parenttype', 'not in', IGNORED_DOCTYPES);
  } else if (meta.name === target.name) {
    query = query.where('name', '!=', name);
  }
  const rows = await ctx.q.all<Record<string, unknown>>(query.orderBy('name').limit(limit).compile());
  return rows.map((row) =>
    meta.isChild
      ? {
          doctype: String(row.parenttype),
          name: String(row.parent),
          docstatus: Number(row.docstatus ?? 0),
          field: childFieldLabel(ctx, String(row.parenttype), meta, path.fieldname),
        }
      : { doctype: meta.name, name: String(row.name), docstatus: Number(row.docstatus ?? 0), field: path.fieldname },
  );
}

/** The Single DocType itself, when its stored values link to the document (a Single is never submitted). */
async function singleReferrer(ctx: DocContext, path: LinkPath, target: Meta, name: string, search: ReferrerSearch): Promise<Referrer[]> {
  if (search.docstatus !== undefined && search.docstatus !== 0) return [];
  const fields = path.typeField ? [path.fieldname, path.typeField] : [path.fieldname];
  const values = await readSingleValues(ctx, path.meta, fields);
  const linked = values[path.fieldname] === name && (!path.typeField || values[path.typeField] === target.name);
  return linked ? [{ doctype: path.meta.name, name: path.meta.name, docstatus: 0, field: path.fieldname }] : [];
}

/**
 * The documents that link to `doctype` `name` through any Link field whose options name its DocType
 * or any Dynamic Link set to it, child rows reported as their parent; the document's own rows and
 * links from archives and notes (IGNORED_DOCTYPES) are left out. Stops after `limit` referrers.
 */
export async function findReferrers(ctx: DocContext, doctype: string, name: string, search: ReferrerSearch = {}): Promise<Referrer[]> {
  const target = ctx.metas.get(doctype);
  const limit = search.limit ?? DEFAULT_LIMIT;
  const found: Referrer[] = [];
  for (const path of linkPathsTo(ctx, target)) {
    if (found.length >= limit) break;
    if (IGNORED_DOCTYPES.includes(path.meta.name)) continue;
    if (search.ignoreFields?.has(path.fieldname)) continue;
    const more = path.meta.isSingle
      ? await singleReferrer(ctx, path, target, name, search)
      : await tableReferrers(ctx, path, target, name, search, limit - found.length);
    found.push(...more);
  }
  return found;
}

/**
 * The reference's refusal of a delete or cancel while documents link to this one (417): "Cannot
 * delete or cancel because <DocType> <name> is linked with <DocType> <name>", naming the first.
 */
export function linkExistsError(doctype: string, name: string, referrers: readonly Referrer[]): LinkExistsError {
  const [first] = referrers;
  const other = first.doctype === first.name ? first.doctype : `${first.doctype} ${first.name}`;
  const message = `Cannot delete or cancel because ${doctype} ${name} is linked with ${other}`;
  return new LinkExistsError(message, {
    doctype,
    messages: [{ message, title: 'Linked' }],
    details: { referrers: referrers.map((r) => ({ doctype: r.doctype, name: r.name, field: r.field })) },
  });
}
