/** A value as the timeline quotes it: text without markup, cut short; empty as "(empty)". */
function quote(v: unknown): string {
  if (v === null || v === undefined || v === '') return '(empty)';
  const text = String(v)
    .replace(/<[^>]*>/g, '')
    .trim();
  return `“${text.length > 60 ? `${text.slice(0, 57)}…` : text}”`;
}

const DOCSTATUS_WORDS: Record<string, string> = { '0>1': 'submitted', '1>2': 'cancelled', '2>0': 'reopened as a draft', '1>0': 'reopened as a draft' };

/**
 * A Version's changes in words (docs/admin-ui.md "Forms"): the docstatus as "submitted" or
 * "cancelled", fields by their label ("changed Title from “a” to “b”"), child rows added, removed
 * or changed in the table named by its label.
 */
export function describeVersion(data: unknown, labels: Record<string, string>): string[] {
  let parsed: Record<string, unknown> = {};
  try {
    parsed = ((typeof data === 'string' ? JSON.parse(data) : data) ?? {}) as Record<string, unknown>;
  } catch {
    return [];
  }
  const label = (f: unknown) => labels[String(f)] ?? String(f).replace(/_/g, ' ');
  const lines: string[] = [];
  for (const c of (parsed.changed as unknown[][] | undefined) ?? []) {
    if (c[0] === 'docstatus') lines.push(DOCSTATUS_WORDS[`${Number(c[1] ?? 0)}>${Number(c[2] ?? 0)}`] ?? 'changed the status');
    else if (c[1] === null || c[1] === undefined || c[1] === '') lines.push(`set ${label(c[0])} to ${quote(c[2])}`);
    else if (c[2] === null || c[2] === undefined || c[2] === '') lines.push(`cleared ${label(c[0])} (was ${quote(c[1])})`);
    else lines.push(`changed ${label(c[0])} from ${quote(c[1])} to ${quote(c[2])}`);
  }
  for (const a of (parsed.added as unknown[][] | undefined) ?? []) lines.push(`added a row to ${label(a[0])}`);
  for (const r of (parsed.removed as unknown[][] | undefined) ?? []) lines.push(`removed a row from ${label(r[0])}`);
  for (const r of (parsed.row_changed as unknown[][] | undefined) ?? []) lines.push(`changed row ${Number(r[1]) + 1} of ${label(r[0])}`);
  return lines;
}
