import type { Doc } from '../meta/doctype.js';

/**
 * The document without its null fields, child rows likewise: how the reference's answers show a
 * document everywhere but API v2 (docs/api.md "API v2"), which keeps them.
 */
export function omitNulls(doc: Doc): Doc {
  const out: Doc = {};
  // for-in over a plain object: no entries array per document on the read path.
  for (const k in doc) {
    const v = doc[k];
    if (v === null || v === undefined) continue;
    out[k] = Array.isArray(v) && v.length > 0 && typeof v[0] === 'object' && v[0] !== null && 'doctype' in v[0] ? v.map((row) => omitNulls(row as Doc)) : v;
  }
  return out;
}
