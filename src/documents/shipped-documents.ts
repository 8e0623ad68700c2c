import { isDeepStrictEqual } from 'node:util';
import { definitionToDoc, docToDefinition } from '../meta/doctype-document.js';
import type { Doc, DocTypeDef } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Queryable } from '../storage/database.js';
import { stampChildRows } from './child-rows.js';
import type { DocumentRepository } from './document-repository.js';

/*
 * Documents fw ships (built-in and app DocTypes' definitions, standard roles, built-in users),
 * written at installation and migration without the document pipeline: they are not editable
 * through the API, so no controller applies.
 */

const SYSTEM_USER = 'Administrator';

/** A definition's values as stored: booleans as 0/1, so `reqd: true` and a stored 1 compare equal. */
function comparable(def: DocTypeDef): unknown {
  return JSON.parse(JSON.stringify(def, (_key, value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value)));
}

/** True when the stored DocType document holds exactly `def` (standard columns and row names aside). */
function storedAsDefined(stored: Doc, def: DocTypeDef): boolean {
  return isDeepStrictEqual(comparable(docToDefinition(stored)), comparable(docToDefinition(definitionToDoc(def))));
}

/**
 * Writes a shipped definition (built-in or an app's) into tabDocType/tabDocField/tabDocPerm as the
 * Administrator, replacing the stored one but keeping its owner and creation. Bypasses the DocType
 * controller on purpose: shipped DocTypes are not editable through the API. A stored definition
 * that already matches is left alone (its `modified` and row names too); returns whether it wrote.
 */
export async function storeDefinition(q: Queryable, repo: DocumentRepository, metas: MetaRegistry, def: DocTypeDef, stamp: string): Promise<boolean> {
  const meta = metas.get('DocType');
  const stored = await repo.load(q, meta, def.name);
  if (stored && storedAsDefined(stored, def)) return false;
  const full = withStandardFields(definitionToDoc(def), stamp, stored);
  stampChildRows(meta, full, stamp, SYSTEM_USER);
  if (stored) await repo.update(q, meta, full);
  else await repo.insert(q, meta, full);
  return true;
}

/** Inserts a document when none of that name exists yet; returns whether it did. */
export async function ensureDoc(q: Queryable, repo: DocumentRepository, meta: Meta, doc: Doc, stamp: string): Promise<boolean> {
  if (await repo.exists(q, meta, String(doc.name))) return false;
  const full = withStandardFields(doc, stamp, undefined);
  stampChildRows(meta, full, stamp, SYSTEM_USER);
  await repo.insert(q, meta, full);
  return true;
}

function withStandardFields(doc: Doc, stamp: string, stored: Doc | undefined): Doc {
  return {
    ...doc,
    owner: stored?.owner ?? SYSTEM_USER,
    creation: stored?.creation ?? stamp,
    modified: stamp,
    modified_by: SYSTEM_USER,
    docstatus: 0,
    idx: 0,
  };
}
