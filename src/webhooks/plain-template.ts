import { escapeIntoJson } from './json-escape.js';

/** Renders a plain template for one document. */
export type PlainTemplate = (doc: Readonly<Record<string, unknown>>) => string;

/** `{{ doc.<field> }}`: the one output a plain template may hold. */
const OUTPUT = /\{\{\s*doc\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
/** Names LiquidJS answers itself (a count, an element) when the document has no such own field. */
const SPECIAL = new Set(['size', 'first', 'last']);

/**
 * The usual webhook JSON template is literal text with `{{ doc.<field> }}` outputs and nothing
 * else. Such a template is rendered here as LiquidJS would render it with fw's options (an own
 * property of the document, or nothing, escaped into JSON string content), without its generator
 * steps, which cost more than the rest of recording a match back when templates rendered in the
 * write (docs/benchmarks.md "Jobs and webhooks"); they now render in the delivery job, where the
 * saving still counts per delivery. Answers undefined for anything else (tags, filters, whitespace control, other
 * variables), which LiquidJS renders.
 */
export function compilePlainTemplate(source: string): PlainTemplate | undefined {
  const literals: string[] = [];
  const fields: string[] = [];
  let from = 0;
  for (const match of source.matchAll(OUTPUT)) {
    const field = match[1]!;
    if (SPECIAL.has(field)) return undefined;
    literals.push(source.slice(from, match.index));
    fields.push(field);
    from = match.index + match[0].length;
  }
  literals.push(source.slice(from));
  if (literals.some((text) => text.includes('{{') || text.includes('{%'))) return undefined;
  return (doc) => {
    let out = literals[0]!;
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      out += escapeIntoJson(Object.hasOwn(doc, field) ? doc[field] : undefined) + literals[i + 1]!;
    }
    return out;
  };
}
