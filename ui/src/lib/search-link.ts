import { api, ApiError } from './api';

export interface LinkOption {
  value: string;
  /** The document's title, when its DocType has a title field. */
  label?: string;
  description?: string;
}

let searchLinkMissing = false;

/**
 * Candidates for a Link field: the reference's `search_link` method where fw has it, else a plain
 * list of names matching `txt` (the same permission rules apply either way).
 */
export async function searchLink(doctype: string, txt: string): Promise<LinkOption[]> {
  if (!searchLinkMissing) {
    try {
      const found = await api.get<unknown>('frappe.desk.search.search_link', { doctype, txt, page_length: 10 });
      if (Array.isArray(found)) {
        return found.map((r) => {
          if (typeof r === 'string') return { value: r };
          const o = r as LinkOption & { label?: string };
          return {
            value: String(o.value),
            ...(o.label ? { label: String(o.label) } : {}),
            description: [o.label, o.description].filter(Boolean).join(' · ') || undefined,
          };
        });
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404 && err.excType === 'DoesNotExistError' && /search_link/.test(err.message))) throw err;
      searchLinkMissing = true;
    }
  }
  const rows = await api.list<{ name: string }>(doctype, {
    fields: ['name'],
    filters: txt ? [['name', 'like', `%${txt}%`]] : [],
    order_by: 'modified desc',
    limit_page_length: 10,
  });
  return rows.map((r) => ({ value: r.name }));
}
