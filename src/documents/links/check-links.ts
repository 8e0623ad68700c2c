import { CancelledLinkError, LinkValidationError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import { isLinkField, linkTarget } from '../../meta/field-links.js';
import type { Meta, ResolvedField } from '../../meta/meta.js';
import type { Queryable } from '../../storage/database.js';
import type { DocumentRepository } from '../document-repository.js';
import type { FoundDocstatuses } from './docstatus-lookup.js';

/** What checkLinks needs besides the document: the database, metadata, and the linking DocType's kind. */
export interface LinkCheck {
  readonly q: Queryable;
  readonly repo: DocumentRepository;
  readonly metaOf: (doctype: string) => Meta;
  readonly knows: (doctype: string) => boolean;
  /** True when the document being saved (the parent, for child rows) is submittable. */
  readonly linkerSubmittable: boolean;
}

/** The DocType whose documents are the DocTypes. */
const DOCTYPE = 'DocType';

/** A link value of the document or one of its rows, in document order: to look up, or already refused. */
type LinkValue =
  | { readonly meta: Meta; readonly field: ResolvedField; readonly value: string; readonly target: Meta }
  | { readonly refused: LinkValidationError };

/** Every non-empty link value of `doc` and its rows, in order; targets that cannot be looked up are refused here. */
function linkValues(meta: Meta, doc: Doc, check: LinkCheck, out: LinkValue[]): LinkValue[] {
  for (const field of meta.valueFields) {
    const value = doc[field.def.fieldname];
    if (value === null || value === undefined || value === '' || !isLinkField(field)) continue;
    const target = linkTarget(field, doc);
    if (target === undefined) {
      if (field.type.options === 'doctype') continue;
      out.push({ refused: new LinkValidationError(`${meta.label(field.def.options ?? '')} must be set before ${meta.label(field.def.fieldname)}`) });
    } else if (!check.knows(target)) {
      out.push({ refused: new LinkValidationError(`Could not find ${meta.label(field.def.fieldname)}: ${String(value)} (no DocType ${target})`) });
    } else if (target === DOCTYPE && check.knows(String(value))) {
      // The metadata registry is loaded from tabDocType and checked current at the start of every
      // unit (docs/architecture.md, "Metadata"), and DocTypes are never submitted or cancelled: a
      // DocType it knows needs no lookup. Version history links every entry to one this way.
    } else {
      const targetMeta = check.metaOf(target);
      if (!targetMeta.isSingle) out.push({ meta, field, value: String(value), target: targetMeta });
    }
  }
  for (const tf of meta.tableFields) {
    const rows = doc[tf.def.fieldname];
    if (Array.isArray(rows)) for (const row of rows) linkValues(check.metaOf(tf.def.options ?? ''), row as Doc, check, out);
  }
  return out;
}

/** The refusal of one looked-up link value, if any. */
function refusal(link: Extract<LinkValue, { value: string }>, found: FoundDocstatuses, linkerSubmittable: boolean): Error | undefined {
  const { meta, field, value, target } = link;
  const docstatus = found.of(target, value);
  if (docstatus === undefined) {
    return new LinkValidationError(`Could not find ${meta.label(field.def.fieldname)}: ${value}`, { doctype: meta.name });
  }
  if (docstatus === 2 && linkerSubmittable && target.isSubmittable && field.def.fieldname !== 'amended_from') {
    return new CancelledLinkError(`Cannot link cancelled document: ${meta.label(field.def.fieldname)}: ${value}`, { doctype: meta.name });
  }
  return undefined;
}

/**
 * Checks that every Link and Dynamic Link value names an existing document (docs/architecture.md
 * "The document pipeline", insert step 4). A submittable document may not link to a cancelled one
 * of a submittable DocType (CancelledLinkError), except through `amended_from`, which names the
 * cancelled original. Every value of the document and its rows is looked up at once (one statement
 * however many links); the first problem in document order is the one reported.
 */
export async function checkLinks(meta: Meta, doc: Doc, check: LinkCheck): Promise<void> {
  const links = linkValues(meta, doc, check, []);
  const lookups = new Map<Meta, Set<string>>();
  for (const link of links) {
    if ('refused' in link) break;
    let names = lookups.get(link.target);
    if (!names) lookups.set(link.target, (names = new Set()));
    names.add(link.value);
  }
  const found = await check.repo.docstatuses(check.q, lookups);
  for (const link of links) {
    if ('refused' in link) throw link.refused;
    const problem = refusal(link, found, check.linkerSubmittable);
    if (problem) throw problem;
  }
}
