/** A value already in JSON form (from the `tojson` filter), inserted as is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * JSON string content of a template output (no surrounding quotes): fits inside "..." and, for
 * numbers, outside (docs/webhooks.md "Bodies").
 */
export function escapeIntoJson(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return JSON.stringify(text).slice(1, -1);
}
