import { DataError, FwError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import { isLinkField, linkTarget } from '../../meta/field-links.js';
import type { Meta } from '../../meta/meta.js';
import type { DocContext } from '../doc-context.js';
import type { DocumentService } from '../document-service.js';

/** The most Link fields one request may expand. */
const MAX_EXPAND_FIELDS = 20;
/** The most rows a list with `expand` may answer per page (each distinct link is one read). */
export const MAX_EXPAND_ROWS = 1000;

/**
 * The `expand` parameter: a JSON list of Link (or Dynamic Link) fieldnames of `meta`, or one
 * fieldname; undefined when absent. Anything else, or a field that is no link, is a 417.
 */
export function parseExpand(raw: unknown, meta: Meta): string[] | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  let value = raw;
  if (typeof value === 'string') {
    const text = value.trim();
    try {
      value = text.startsWith('[') ? JSON.parse(text) : [text];
    } catch {
      throw new DataError(`expand must be a list of Link fields (JSON); got ${text.slice(0, 100)}`);
    }
  }
  if (!Array.isArray(value) || !value.every((f) => typeof f === 'string')) throw new DataError('expand must be a list of Link fieldnames');
  if (value.length > MAX_EXPAND_FIELDS) throw new DataError(`expand may name at most ${MAX_EXPAND_FIELDS} fields; got ${value.length}`);
  for (const name of value as string[]) {
    const field = meta.field(name);
    if (!field || !isLinkField(field)) throw new DataError(`expand: ${name.slice(0, 140)} is not a Link field of ${meta.name}`, { doctype: meta.name });
  }
  return [...new Set(value as string[])];
}

/** True for the reference's `expand_links=1` (every Link of a read document, in child rows too). */
export function wantsAllLinks(raw: unknown): boolean {
  return raw === true || raw === 1 || raw === '1' || raw === 'true' || raw === 'True';
}

/**
 * Replaces Link values by the linked documents, each read with the caller's own rights: a
 * document the caller may not read (or that is missing) is never expanded, its name stays as it
 * was. Each distinct document is read once per request.
 */
export class LinkExpander {
  readonly #cache = new Map<string, Promise<Doc | undefined>>();

  constructor(
    private readonly ctx: DocContext,
    private readonly documents: DocumentService,
    /** How the answer shows a document (the API version's conventions). */
    private readonly present: (doc: Doc) => Doc,
  ) {}

  /** The linked document as the caller may see it, or undefined. */
  #linked(doctype: string, name: string): Promise<Doc | undefined> {
    const key = `${doctype}\u0000${name}`;
    let found = this.#cache.get(key);
    if (!found) {
      found = this.#read(doctype, name);
      this.#cache.set(key, found);
    }
    return found;
  }

  async #read(doctype: string, name: string): Promise<Doc | undefined> {
    if (!this.ctx.metas.has(doctype) || this.ctx.metas.get(doctype).isChild) return undefined;
    try {
      return this.present(await this.documents.get(this.ctx, doctype, name));
    } catch (err) {
      // Refused or missing: the caller keeps the name it already sees, and nothing more.
      if (err instanceof FwError && err.status < 500) return undefined;
      throw err;
    }
  }

  /** Expands `fields` (all link fields when undefined) of one document or row, in place. */
  async expand(meta: Meta, doc: Doc, fields: readonly string[] | undefined): Promise<void> {
    const names = fields ?? meta.fields.filter(isLinkField).map((f) => f.def.fieldname);
    // Dynamic Links first: the field naming their DocType may itself be expanded after them.
    const ordered = [...names].sort((a, b) => dynamicFirst(meta, a) - dynamicFirst(meta, b));
    for (const fieldname of ordered) {
      const field = meta.field(fieldname);
      const value = doc[fieldname];
      if (!field || (typeof value !== 'string' && typeof value !== 'number') || value === '') continue;
      const target = linkTarget(field, doc);
      if (target === undefined) continue;
      const linked = await this.#linked(target, String(value));
      if (linked) doc[fieldname] = linked;
    }
  }

  /** Every link of a read document and of its child rows (`expand_links`). */
  async expandAll(meta: Meta, doc: Doc): Promise<void> {
    await this.expand(meta, doc, undefined);
    for (const table of meta.tableFields) {
      const rows = doc[table.def.fieldname];
      const child = table.def.options;
      if (!Array.isArray(rows) || !child || !this.ctx.metas.has(child)) continue;
      for (const row of rows) if (row !== null && typeof row === 'object') await this.expand(this.ctx.metas.get(child), row as Doc, undefined);
    }
  }
}

function dynamicFirst(meta: Meta, fieldname: string): number {
  return meta.field(fieldname)?.type.options === 'doctype-field' ? 0 : 1;
}
