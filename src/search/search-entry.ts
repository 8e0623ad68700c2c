import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import { foldText } from './fold-text.js';

/** What the index holds of one document (docs/search.md "What is indexed"). */
export interface SearchEntry {
  readonly doctype: string;
  readonly name: string;
  readonly title: string;
  /** `Label : value ||| Label : value`, as the reference shows it. */
  readonly content: string;
  /** Folded forms (fold-text.ts): what the engines index and match. */
  readonly titleWords: string;
  readonly contentWords: string;
  readonly nameFolded: string;
  /** `modified`, as stored text, for the last ranking step. */
  readonly modified: string;
}

/** Field types whose values are text worth finding. */
const TEXT_TYPES = new Set([
  'Data',
  'Small Text',
  'Text',
  'Long Text',
  'Text Editor',
  'HTML Editor',
  'Markdown Editor',
  'Code',
  'Select',
  'Link',
  'Dynamic Link',
  'Read Only',
  'Int',
  'Float',
  'Currency',
  'Date',
  'Datetime',
  'Phone',
  'Autocomplete',
]);
const HTML_TYPES = new Set(['Text Editor', 'HTML Editor']);
/** The index keeps this much of a document's content; enough to find it by, bounded for the index. */
const MAX_CONTENT = 20_000;

/** True when documents of `meta` are indexed: a plain DocType with a field marked in_global_search. */
export function isSearchable(meta: Meta): boolean {
  return !meta.isChild && !meta.isSingle && searchFields(meta).length > 0;
}

/**
 * The fields a document's content is made of. A field above permlevel 0 is never indexed: the
 * content is shown to everyone who may read the document, and such a field is not theirs to see.
 */
function searchFields(meta: Meta) {
  return meta.fields.filter(
    (f) => f.def.in_global_search === 1 && (f.def.permlevel ?? 0) === 0 && (TEXT_TYPES.has(f.def.fieldtype) || f.def.fieldtype === 'Table'),
  );
}

/**
 * The entry of `doc`, or undefined when it must not be found: cancelled (docstatus 2), or
 * switched off by an `enabled` of 0 or a `disabled` of 1, as the reference leaves those out. The
 * content holds the in_global_search fields of the document and of its child rows, with HTML
 * reduced to its text.
 */
export function searchEntry(meta: Meta, doc: Doc, metaOf: (doctype: string) => Meta): SearchEntry | undefined {
  if (doc.docstatus === 2) return undefined;
  if ((meta.field('enabled') && Number(doc.enabled) === 0) || (meta.field('disabled') && Number(doc.disabled) === 1)) return undefined;
  const parts: string[] = [];
  for (const field of searchFields(meta)) {
    if (field.def.fieldtype === 'Table') {
      const child = field.def.options ? metaOf(field.def.options) : undefined;
      const rows = Array.isArray(doc[field.def.fieldname]) ? (doc[field.def.fieldname] as Doc[]) : [];
      if (!child) continue;
      for (const row of rows) for (const cf of searchFields(child)) pushPart(parts, cf.def.label || cf.def.fieldname, row[cf.def.fieldname], cf.def.fieldtype);
      continue;
    }
    pushPart(parts, field.def.label || field.def.fieldname, doc[field.def.fieldname], field.def.fieldtype);
  }
  const name = String(doc.name);
  const titleField = meta.def.title_field && (meta.field(meta.def.title_field)?.def.permlevel ?? 0) === 0 ? meta.def.title_field : undefined;
  const rawTitle = titleField && doc[titleField] !== undefined && doc[titleField] !== null && doc[titleField] !== '' ? String(doc[titleField]) : name;
  const content = parts.join(' ||| ').slice(0, MAX_CONTENT);
  return {
    doctype: meta.name,
    name,
    title: rawTitle,
    content,
    titleWords: foldText(rawTitle),
    contentWords: foldText(content),
    nameFolded: name.toLowerCase(),
    modified: String(doc.modified ?? ''),
  };
}

function pushPart(parts: string[], label: string, value: unknown, fieldtype: string): void {
  if (value === undefined || value === null || value === '') return;
  const text = HTML_TYPES.has(fieldtype) ? htmlText(String(value)) : String(value);
  if (text.trim() !== '') parts.push(`${label} : ${text.trim()}`);
}

/** The text of HTML: tags become spaces, the common entities their characters. */
function htmlText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}
