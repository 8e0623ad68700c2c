import { reactive } from 'vue';
import { api } from './api';
import { getMeta } from './session';

/*
 * The titles of linked documents (the DocType's `title_field`), for list cells and Link fields
 * (docs/admin-ui.md "Lists"): fetched once per document and kept for the page's life. A DocType
 * without a title field, or one the user may not read, has no titles and shows its names.
 */
const known = reactive(new Map<string, string | null>());
const key = (doctype: string, name: string) => `${doctype}\u0000${name}`;

/** The title field of a DocType, or undefined (none, or not readable by the user). */
async function titleField(doctype: string): Promise<string | undefined> {
  try {
    const tf = (await getMeta(doctype)).doc.title_field;
    return typeof tf === 'string' && tf && tf !== 'name' ? tf : undefined;
  } catch {
    return undefined;
  }
}

/** The title already known for a linked document (null: it has none), or undefined when not yet asked. */
export function knownTitle(doctype: string, name: string): string | null | undefined {
  return known.get(key(doctype, name));
}

/** Fetches the titles of `names` of `doctype` that are not known yet: one list request per DocType. */
export async function fetchTitles(doctype: string, names: Iterable<string>): Promise<void> {
  const missing = [...new Set(names)].filter((n) => n && !known.has(key(doctype, n)));
  if (!missing.length) return;
  const tf = await titleField(doctype);
  for (const n of missing) known.set(key(doctype, n), null);
  if (!tf) return;
  try {
    const rows = await api.list<Record<string, unknown>>(doctype, {
      fields: ['name', tf],
      filters: [['name', 'in', missing]],
      limit_page_length: missing.length,
    });
    for (const r of rows) {
      const t = r[tf];
      if (typeof t === 'string' && t && t !== r.name) known.set(key(doctype, String(r.name)), t);
    }
  } catch {
    // Not readable: the names stand.
  }
}
