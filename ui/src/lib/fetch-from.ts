import { api } from './api';
import type { DocField } from './session';

/** The fields filled from a Link (`fetch_from: "<link field>.<remote field>"`), by their Link field. */
export function fetchedBy(fields: readonly DocField[], linkField: string): { fieldname: string; remote: string }[] {
  return fields
    .filter((f) => typeof f.fetch_from === 'string' && f.fetch_from.startsWith(`${linkField}.`))
    .map((f) => ({ fieldname: f.fieldname, remote: String(f.fetch_from).slice(linkField.length + 1) }))
    .filter((f) => f.remote !== '');
}

/**
 * The values a chosen Link brings along (docs/admin-ui.md "Forms"), read as the server's
 * `validate_link` reads them, so they appear as soon as the link is chosen rather than after saving;
 * an unknown name, or one the user may not read, brings nothing.
 */
export async function fetchLinkedValues(target: string, name: string, fetched: { fieldname: string; remote: string }[]): Promise<Record<string, unknown>> {
  if (!target || !name || !fetched.length) return {};
  const found = await api.get<Record<string, unknown>>('frappe.client.validate_link', {
    doctype: target,
    docname: name,
    fields: fetched.map((f) => f.remote),
  });
  if (!found || found.name !== name) return {};
  return Object.fromEntries(fetched.filter((f) => f.remote in found).map((f) => [f.fieldname, found[f.remote]]));
}
