import { listQueryAfterAccess } from '../../documents/lists/list-access.js';
import type { DocContext } from '../../documents/doc-context.js';
import { IGNORED_DOCTYPES } from '../../documents/links/find-referrers.js';
import { linkPathsTo } from '../../documents/links/link-paths.js';
import { listDocuments } from '../../documents/lists/list-documents.js';
import { FrappeTypeError } from '../../errors/index.js';
import type { Meta } from '../../meta/meta.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { asObject } from './client-args.js';

/*
 * What links to a document (docs/api.md "Linked documents"): the reference's form shows it in its
 * "Links" panel and uses it to explain a refused delete or cancel. Every answer passes through the
 * list rules, so only documents the caller may read are named, and the caller must be able to read
 * the document asked about.
 */

/** How documents of one DocType link to the document (the reference's `linkinfo` entry). */
interface LinkInfo {
  /** Link fields of the DocType itself, or of `child_doctype` when the link sits in a child row. */
  fieldname: string[];
  child_doctype?: string;
  /** For a Dynamic Link: the field that must name the document's DocType. */
  doctype_fieldname?: string;
}

/** The DocTypes that hold a Table field of `child`. */
function parentsOf(ctx: DocContext, child: Meta): Meta[] {
  return ctx.metas
    .names()
    .map((n) => ctx.metas.get(n))
    .filter((m) => !m.isChild && !m.isSingle && m.tableFields.some((f) => f.def.options === child.name));
}

/**
 * The reference's `get_linked_doctypes`: per DocType, the fields through which its documents can
 * link to `target`. Notes and history about a document (ToDo, Comment, Version, ...) are not "linked
 * with" it, as the reference's `exclude_from_linked_with` leaves them out.
 */
function linkedDocTypes(ctx: DocContext, target: Meta): Record<string, LinkInfo> {
  const out: Record<string, LinkInfo> = {};
  const add = (doctype: string, fieldname: string, child: string | undefined, typeField: string | undefined) => {
    const info = (out[doctype] ??= { fieldname: [], ...(child ? { child_doctype: child } : {}), ...(typeField ? { doctype_fieldname: typeField } : {}) });
    if (!info.fieldname.includes(fieldname)) info.fieldname.push(fieldname);
  };
  for (const path of linkPathsTo(ctx, target)) {
    if (path.meta.isSingle || IGNORED_DOCTYPES.includes(path.meta.name)) continue;
    if (!path.meta.isChild) {
      add(path.meta.name, path.fieldname, undefined, path.typeField);
      continue;
    }
    for (const parent of parentsOf(ctx, path.meta)) {
      if (!IGNORED_DOCTYPES.includes(parent.name)) add(parent.name, path.fieldname, path.meta.name, path.typeField);
    }
  }
  return out;
}

/** The columns the reference answers per linked document: the list-view fields, then name, modified and docstatus. */
function linkedFields(meta: Meta): string[] {
  const shown = meta.valueFields.filter((f) => f.def.in_list_view === 1 && !['Image', 'HTML', 'Button'].includes(f.def.fieldtype)).map((f) => f.def.fieldname);
  return [...new Set([...shown, 'name', 'modified', 'docstatus'])];
}

/** One entry of a `linkinfo` argument, checked: field names as a list, optional child and type fields. */
function parseLinkInfo(value: unknown): LinkInfo {
  const o = asObject(value, 'each linkinfo entry');
  const names = typeof o.fieldname === 'string' ? [o.fieldname] : o.fieldname;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
    throw new FrappeTypeError('linkinfo fieldname must be a field name or a list of them');
  const optional = (key: string) => (o[key] === undefined || o[key] === null ? undefined : String(o[key]));
  return { fieldname: names as string[], child_doctype: optional('child_doctype'), doctype_fieldname: optional('doctype_fieldname') };
}

/** The documents of `doctype` that link to `target` `name` through `info`, as the caller may list them. */
async function linkedDocs(ctx: DocContext, doctype: string, info: LinkInfo, target: string, name: string): Promise<unknown[]> {
  const meta = ctx.metas.get(doctype);
  const via = info.child_doctype;
  const orFilters = info.fieldname.map((f) => (via ? [via, f, '=', name] : [f, '=', name]));
  const filters = info.doctype_fieldname ? [via ? [via, info.doctype_fieldname, '=', target] : [info.doctype_fieldname, '=', target]] : [];
  const { rows } = await listDocuments(
    ctx,
    await listQueryAfterAccess(ctx, doctype, { fields: linkedFields(meta), filters, or_filters: orFilters, limit_page_length: 0, order_by: 'modified desc' }),
  );
  const seen = new Set<unknown>();
  // A document linking from several child rows is named once.
  return (rows as Record<string, unknown>[]).filter((r) => !seen.has(r.name) && seen.add(r.name) !== undefined);
}

/**
 * `fw.desk.form.linked_with.get_linked_docs(doctype, name, linkinfo?)` and `.get(doctype, docname)`:
 * per DocType, the documents linking to this one. DocTypes the caller may not read, and unknown
 * DocTypes or fields in `linkinfo`, are left out, as the reference skips them.
 */
async function getLinkedDocs(call: MethodCall, doctype: string, name: string, rawInfo: unknown): Promise<Record<string, unknown[]>> {
  const { ctx, services } = call;
  await services.documents.get(ctx, doctype, name);
  const target = ctx.metas.get(doctype);
  const given = rawInfo === undefined || rawInfo === null || rawInfo === '' ? undefined : asObject(rawInfo, 'linkinfo');
  const infos: Record<string, LinkInfo> = given
    ? Object.fromEntries(Object.entries(given).map(([dt, v]) => [dt, parseLinkInfo(v)]))
    : linkedDocTypes(ctx, target);
  const out: Record<string, unknown[]> = {};
  for (const [dt, info] of Object.entries(infos)) {
    if (!ctx.metas.has(dt)) continue;
    const meta = ctx.metas.get(dt);
    if (meta.isSingle || meta.isChild || !(await services.documents.can(ctx, meta, 'read'))) continue;
    const fieldsExist = info.fieldname.every((f) =>
      info.child_doctype ? ctx.metas.has(info.child_doctype) && ctx.metas.get(info.child_doctype).hasColumn(f) : meta.hasColumn(f),
    );
    if (!fieldsExist) continue;
    const rows = await linkedDocs(ctx, dt, info, doctype, name);
    if (rows.length > 0) out[dt] = rows;
  }
  return out;
}

/**
 * `fw.desk.form.linked_with.get_submitted_linked_docs(doctype, name)`: the submitted documents of
 * submittable DocTypes that link to this one, and those that link to them, and so on (what must be
 * cancelled first), as `{docs: [{doctype, name, docstatus: 1}], count}`. Documents the caller may not
 * read are left out and not followed further.
 */
async function getSubmittedLinkedDocs(call: MethodCall): Promise<{ docs: { doctype: string; name: string; docstatus: 1 }[]; count: number }> {
  const { ctx, services } = call;
  const rootType = String(call.args.doctype);
  const rootName = String(call.args.name);
  await services.documents.get(ctx, rootType, rootName);
  const visited = new Set<string>([`${rootType}\u0000${rootName}`]);
  const docs: { doctype: string; name: string; docstatus: 1 }[] = [];
  let level: { doctype: string; name: string }[] = [{ doctype: rootType, name: rootName }];
  while (level.length > 0) {
    const next: { doctype: string; name: string }[] = [];
    for (const node of level) {
      const infos = linkedDocTypes(ctx, ctx.metas.get(node.doctype));
      for (const [dt, info] of Object.entries(infos)) {
        const meta = ctx.metas.get(dt);
        if (!meta.isSubmittable || !(await services.documents.can(ctx, meta, 'read'))) continue;
        const rows = (await linkedDocs(ctx, dt, { ...info }, node.doctype, node.name)) as Record<string, unknown>[];
        for (const row of rows) {
          const key = `${dt}\u0000${String(row.name)}`;
          if (Number(row.docstatus) !== 1 || visited.has(key)) continue;
          visited.add(key);
          docs.push({ doctype: dt, name: String(row.name), docstatus: 1 });
          next.push({ doctype: dt, name: String(row.name) });
        }
      }
    }
    level = next;
  }
  return { docs, count: docs.length };
}

/** The form's "linked with" methods; all read. */
export function registerLinkedWithMethods(methods: MethodRegistry): void {
  methods.register(
    'fw.desk.form.linked_with.get_linked_docs',
    (call) => getLinkedDocs(call, String(call.args.doctype), String(call.args.name), call.args.linkinfo),
    {
      description: 'Per DocType, the documents that link to a document, as the caller may read them.',
      params: [
        { name: 'doctype', type: 'string', required: true },
        { name: 'name', type: 'string', required: true },
        { name: 'linkinfo', type: 'object' },
      ],
    },
  );
  methods.register('fw.desk.form.linked_with.get', (call) => getLinkedDocs(call, String(call.args.doctype), String(call.args.docname), undefined), {
    description: 'Per DocType, the documents that link to a document, as the caller may read them.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'docname', type: 'string', required: true },
    ],
  });
  methods.register('fw.desk.form.linked_with.get_submitted_linked_docs', getSubmittedLinkedDocs, {
    description: 'The submitted documents that link to a document, directly or through other submitted documents.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'name', type: 'string', required: true },
    ],
  });
}
