import type { Doc } from '../meta/doctype.js';

/** Output conventions: v1 bodies drop null fields (as the reference does); v2 bodies keep them. */
export type Presentation = 'v1' | 'v2';

/** The document as a client sees it; child rows get the same treatment. */
export function presentDoc(doc: Doc, style: Presentation): Doc {
  if (style === 'v2') return doc;
  const out: Doc = {};
  for (const [k, v] of Object.entries(doc)) {
    if (v === null || v === undefined) continue;
    out[k] = Array.isArray(v) && v.length > 0 && typeof v[0] === 'object' && v[0] !== null && 'doctype' in v[0]
      ? v.map((row) => presentDoc(row as Doc, style))
      : v;
  }
  return out;
}
