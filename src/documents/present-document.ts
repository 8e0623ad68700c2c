import type { Doc } from '../meta/doctype.js';

/** Output conventions: v1 bodies drop null fields (as the reference does); v2 bodies keep them. */
export type Presentation = 'v1' | 'v2';

/** The document as a client sees it; child rows get the same treatment. */
export function presentDoc(doc: Doc, style: Presentation): Doc {
  if (style === 'v2') return doc;
  const out: Doc = {};
  // for-in over a plain object: no entries array per document on the read path.
  for (const k in doc) {
    const v = doc[k];
    if (v === null || v === undefined) continue;
    out[k] =
      Array.isArray(v) && v.length > 0 && typeof v[0] === 'object' && v[0] !== null && 'doctype' in v[0] ? v.map((row) => presentDoc(row as Doc, style)) : v;
  }
  return out;
}
