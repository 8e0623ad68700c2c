import { api, type Filter } from './api';

/*
 * A user's list settings per DocType, kept on the server with `fw.model.utils.user_settings`
 * (docs/admin-ui.md "Screens"): the columns, filters, sort and page length of the list view, restored
 * when the user comes back without a query of their own. Stored under the `List` key as the
 * reference's list view stores them; filters also read in the reference's `[doctype, field, op,
 * value, hidden]` form and a sort as `` `tabX`.`field` desc ``.
 */

export interface ListSettings {
  /** Column fieldnames, or absent for the DocType's default columns. */
  fields?: string[];
  filters?: Filter[];
  /** `field asc|desc`. */
  order_by?: string;
  page_length?: number;
}

export const PAGE_LENGTHS = [20, 100, 500];

/** The query keys of the list that settings restore; a URL with any of them wins over the settings. */
export const SETTING_KEYS = ['filters', 'order', 'limit'] as const;

const FIELDNAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `` `tabX`.`field` desc `` or `field desc` as `field desc`; anything else undefined. */
export function plainOrder(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = /^\s*(?:`[^`]+`\.)?`?([A-Za-z_][A-Za-z0-9_]*)`?\s+(asc|desc)\s*$/i.exec(raw);
  return m ? `${m[1]} ${m[2].toLowerCase()}` : undefined;
}

function plainFilter(raw: unknown): Filter | undefined {
  if (!Array.isArray(raw)) return undefined;
  // The reference's rows lead with the DocType and may end with a "hidden" flag.
  const row = raw.length >= 4 ? raw.slice(1, 4) : raw;
  const [field, op, value] = row as unknown[];
  return typeof field === 'string' && FIELDNAME.test(field) && typeof op === 'string' && op ? [field, op, value] : undefined;
}

/** The `List` part of the settings JSON text `user_settings.get` answers; what does not parse is left out. */
export function parseListSettings(text: unknown): ListSettings {
  let all: unknown;
  try {
    all = typeof text === 'string' ? JSON.parse(text) : text;
  } catch {
    return {};
  }
  const list = all && typeof all === 'object' ? (all as Record<string, unknown>).List : undefined;
  if (!list || typeof list !== 'object') return {};
  const l = list as Record<string, unknown>;
  const out: ListSettings = {};
  if (Array.isArray(l.fields)) {
    const fields = l.fields.filter((f): f is string => typeof f === 'string' && FIELDNAME.test(f));
    if (fields.length) out.fields = fields;
  }
  if (Array.isArray(l.filters)) {
    const filters = l.filters.map(plainFilter).filter((f): f is Filter => f !== undefined);
    if (filters.length) out.filters = filters;
  }
  const order = plainOrder(l.order_by);
  if (order) out.order_by = order;
  if (PAGE_LENGTHS.includes(Number(l.page_length))) out.page_length = Number(l.page_length);
  return out;
}

/**
 * The query to restore: the saved filters, sort and page length, when the current query names none
 * of them (a shared link or the back button keeps its own); else undefined.
 */
export function restoreQuery(saved: ListSettings, query: Record<string, unknown>): Record<string, string> | undefined {
  if (SETTING_KEYS.some((k) => query[k] !== undefined && query[k] !== '')) return undefined;
  const patch: Record<string, string> = {};
  if (saved.filters?.length) patch.filters = JSON.stringify(saved.filters);
  if (saved.order_by && saved.order_by !== 'modified desc') patch.order = saved.order_by;
  if (saved.page_length && saved.page_length !== PAGE_LENGTHS[0]) patch.limit = String(saved.page_length);
  return Object.keys(patch).length ? patch : undefined;
}

/** The `user_settings` argument of `user_settings.save` for the list's current state. */
export function listSettingsBody(state: { columns: string[] | null; filters: Filter[]; order: string; pageLength: number }): { List: ListSettings } {
  const list: ListSettings = { filters: state.filters, order_by: state.order, page_length: state.pageLength };
  if (state.columns) list.fields = state.columns;
  return { List: list };
}

/** The caller's saved list settings for `doctype`; none when the server has none or refuses. */
export async function loadListSettings(doctype: string): Promise<ListSettings> {
  try {
    return parseListSettings(await api.get('fw.model.utils.user_settings.get', { doctype }));
  } catch {
    return {};
  }
}

/** Keeps the list's state for the caller; a refusal only costs the restore next time. */
export async function saveListSettings(doctype: string, settings: { List: ListSettings }): Promise<void> {
  await api.post('fw.model.utils.user_settings.save', { doctype, user_settings: JSON.stringify(settings) }).catch(() => undefined);
}
