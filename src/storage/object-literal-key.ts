/**
 * `name` as a key in generated object-literal source: JSON-quoted, so any column name is safe,
 * and `__proto__` computed, so that a column of that name becomes an own property rather than
 * the object's prototype.
 */
export function objectLiteralKey(name: string): string {
  const quoted = JSON.stringify(name);
  return name === '__proto__' ? `[${quoted}]` : quoted;
}
