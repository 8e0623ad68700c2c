import type { MaybePromise } from '../async/maybe-promise.js';
import type { Doc, PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { DocContext } from './doc-context.js';
import type { DocumentRepository } from './document-repository.js';

/**
 * What the steps of the document pipeline (deleting, amending, Singles) need from the service
 * that runs them: its permission checks, its repository and its Password-field storage. They take this rather than the
 * service itself, so the service can call them without the modules importing each other.
 */
export interface DocumentGuard {
  /** True when the principal may use `right` on `doc`, or without a document on some documents of the DocType. */
  can(ctx: DocContext, meta: Meta, right: PermissionType, doc?: Doc): MaybePromise<boolean>;
  /** Throws PermissionError unless `can` allows. */
  authorize(ctx: DocContext, meta: Meta, right: PermissionType, doc?: Doc): MaybePromise<void>;
  /** Reads and writes document rows. */
  repo(ctx: DocContext): DocumentRepository;
  /** Stores the Password fields of `doc` encrypted with the site's key (see secret-fields.ts). */
  storeSecrets(ctx: DocContext, meta: Meta, doc: Doc, before: Doc | undefined): Promise<void>;
}
