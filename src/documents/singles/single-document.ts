import { now } from '../../datetime/clock.js';
import { DoesNotExistError, ValidationError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import type { FieldContext } from '../../meta/field-types/field-type.js';
import type { Meta, ResolvedField } from '../../meta/meta.js';
import { hideUnreadableFields } from '../../permissions/hide-unreadable-fields.js';
import { keepUnwritableFields } from '../../permissions/keep-unwritable-fields.js';
import { applyDefaults, coerceFields, mergePatch } from '../build-document.js';
import { claimChildRows, stampChildRows } from '../child-rows.js';
import type { DocContext } from '../doc-context.js';
import type { DocumentGuard } from '../document-guard.js';
import { applyFetchFrom } from '../fetch-from.js';
import { checkModified, laterThan } from '../modified-stamp.js';
import { loadSingleChildRows, saveSingleChildRows } from './single-child-rows.js';
import { fromSingleText, readSingleRows, toSingleText, writeSingleRows, type SingleRows } from './single-rows.js';
import { checkLinks } from '../links/check-links.js';
import { checkFieldValues, checkMandatory, checkSetOnlyOnce } from '../validate-document.js';

/*
 * Single DocTypes (`issingle`): one document, named after its DocType, whose values live in
 * `__Singles`. DocumentService calls these for a Single's get, insert, update and delete, so nothing
 * above documents/ knows that a Single is stored differently. A field never stored shows its
 * DocField default (or null); a save stores the
 * fields the client sent with a value, and any field whose value the save changed, so a field
 * left alone keeps following its default (System Settings relies on this: an empty setting falls
 * back to site_config.json). `owner`, `creation`, `modified` and `modified_by` are rows too.
 */

/** Standard fields kept as rows; the first two are written once. */
const STANDARD_ROWS = ['owner', 'creation', 'modified', 'modified_by'] as const;
const WRITTEN_ONCE: ReadonlySet<string> = new Set(['owner', 'creation']);

function fieldContext(ctx: DocContext, meta: Meta): FieldContext {
  return { doctype: meta.name, timeZone: ctx.settings.timeZone, user: ctx.principal.user };
}

function notFound(meta: Meta, name: string): DoesNotExistError {
  return new DoesNotExistError(`${meta.name} ${name} not found`, { doctype: meta.name });
}

/** A stored-form value as a fresh read returns it (the text round trip normalises numbers, JSON, times). */
function present(field: ResolvedField, stored: unknown): unknown {
  return fromSingleText(field, toSingleText(stored));
}

/** A value coerced to its stored form, or the value itself when coercion refuses it (a bad default). */
function coerceQuietly(field: ResolvedField, value: unknown, fctx: FieldContext): unknown {
  try {
    return field.type.coerce(value, field.def, fctx);
  } catch {
    return value;
  }
}

/** The document from its stored rows, defaults filling the fields never stored. */
function fromRows(ctx: DocContext, meta: Meta, rows: SingleRows): Doc {
  const fctx = fieldContext(ctx, meta);
  const doc: Doc = { name: meta.name };
  for (const key of STANDARD_ROWS) doc[key] = rows.get(key) ?? null;
  doc.docstatus = 0;
  doc.idx = 0;
  const defaults: Doc = {};
  applyDefaults(meta, defaults, fctx);
  for (const f of meta.valueFields) {
    const key = f.def.fieldname;
    if (rows.has(key)) doc[key] = fromSingleText(f, rows.get(key) ?? null);
    else doc[key] = defaults[key] === undefined ? null : present(f, coerceQuietly(f, defaults[key], fctx));
  }
  doc.doctype = meta.name;
  return doc;
}

/** The Single's document, child rows included, without permission checks. */
export async function loadSingle(ctx: DocContext, meta: Meta): Promise<Doc> {
  const doc = fromRows(ctx, meta, await readSingleRows(ctx.q, ctx.dialect, meta.name));
  await loadSingleChildRows(ctx, meta, doc);
  return doc;
}

/**
 * Reads the Single's document (read permission), without the fields the principal may not read.
 * `name` must be the DocType's own name, else 404 (after the permission check, so it leaks nothing).
 */
export async function getSingle(ctx: DocContext, service: DocumentGuard, meta: Meta, name: string): Promise<Doc> {
  await service.authorize(ctx, meta, 'read');
  if (name !== meta.name) throw notFound(meta, name);
  const doc = await loadSingle(ctx, meta);
  await service.authorize(ctx, meta, 'read', doc);
  return hideUnreadableFields(ctx.principal, meta, doc, (d) => ctx.metas.get(d));
}

/** Empty input: what a client sends for a field it has no value for. */
function isBlank(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** The rows a save writes: see the module comment for which fields count as set. */
function rowsToWrite(meta: Meta, patch: Doc, before: Doc, doc: Doc, stored: SingleRows, fctx: FieldContext): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const f of meta.valueFields) {
    const key = f.def.fieldname;
    const text = toSingleText(doc[key]);
    if (stored.has(key)) {
      if (stored.get(key) !== text) out.set(key, text);
    } else if (Object.hasOwn(patch, key) ? !isBlank(patch[key]) : text !== toSingleText(coerceQuietly(f, before[key], fctx))) {
      out.set(key, text);
    }
  }
  for (const key of STANDARD_ROWS) out.set(key, toSingleText(doc[key]));
  return out;
}

/**
 * Merges `patch` into the Single and saves it (write permission), in the caller's transaction:
 * a `modified` in the patch must equal the stored one exactly (TimestampMismatchError); values are
 * coerced, fetched (`fetch_from`) and validated as for any document, and the DocType's
 * before_validate, validate, before_save, on_update and on_change hooks run. Returns the document
 * as a fresh read shows it.
 */
export async function updateSingle(ctx: DocContext, service: DocumentGuard, meta: Meta, patch: Doc, name = meta.name): Promise<Doc> {
  await service.authorize(ctx, meta, 'write');
  if (name !== meta.name) throw notFound(meta, name);
  const metaOf = (d: string) => ctx.metas.get(d);
  const stored = await readSingleRows(ctx.q, ctx.dialect, meta.name, { forUpdate: true });
  const before = fromRows(ctx, meta, stored);
  await loadSingleChildRows(ctx, meta, before);
  await service.authorize(ctx, meta, 'write', before);
  checkModified(meta, before, patch);
  const fctx = fieldContext(ctx, meta);
  const doc: Doc = structuredClone(before);
  claimChildRows(meta, patch, before);
  mergePatch(meta, doc, patch);
  keepUnwritableFields(ctx.principal, meta, doc, before, metaOf);
  coerceFields(meta, doc, fctx, metaOf);
  await service.authorize(ctx, meta, 'write', doc);

  const stamp = laterThan(now(ctx.settings.timeZone), String(before.modified ?? ''));
  doc.owner = before.owner ?? ctx.principal.user;
  doc.creation = before.creation ?? stamp;
  doc.modified = stamp;
  doc.modified_by = ctx.principal.user;
  stampChildRows(meta, doc, stamp, ctx.principal.user);

  const hookArgs = { doc, before, ctx };
  await applyFetchFrom(ctx, meta, doc, before);
  await ctx.hooks.run(meta.name, 'before_validate', hookArgs);
  checkMandatory(meta, doc, metaOf);
  checkFieldValues(meta, doc, fctx, metaOf);
  const knows = (d: string) => ctx.metas.has(d);
  await checkLinks(meta, doc, { q: ctx.q, repo: service.repo(ctx), metaOf, knows, linkerSubmittable: false });
  await ctx.hooks.run(meta.name, 'validate', hookArgs);
  // Only stored values are "set once"; a default shown for a field never stored is not.
  const storedFields = meta.valueFields.filter((f) => stored.has(f.def.fieldname));
  checkSetOnlyOnce(meta, doc, Object.fromEntries(storedFields.map((f) => [f.def.fieldname, before[f.def.fieldname]])));
  await ctx.hooks.run(meta.name, 'before_save', hookArgs);
  await service.storeSecrets(ctx, meta, doc, before);
  // Hooks may have added rows; they get their standard columns too.
  stampChildRows(meta, doc, stamp, ctx.principal.user);

  await writeSingleRows(ctx.q, ctx.dialect, meta.name, rowsToWrite(meta, patch, before, doc, stored, fctx), WRITTEN_ONCE);
  await saveSingleChildRows(ctx, meta, doc);
  await ctx.hooks.run(meta.name, 'on_update', hookArgs);
  await ctx.hooks.run(meta.name, 'on_change', hookArgs);
  return hideUnreadableFields(ctx.principal, meta, await loadSingle(ctx, meta), metaOf);
}

/** A Single's document exists as long as its DocType: deleting it is refused (after the permission check). */
export async function deleteSingle(ctx: DocContext, service: DocumentGuard, meta: Meta, name: string): Promise<never> {
  await service.authorize(ctx, meta, 'delete');
  if (name !== meta.name) throw notFound(meta, name);
  throw new ValidationError(`${meta.name} is a Single DocType: its document cannot be deleted`, { doctype: meta.name });
}
