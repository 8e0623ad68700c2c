import { DataError } from '../errors/index.js';
import { now } from '../datetime/clock.js';
import type { Doc, PermissionType } from '../meta/doctype.js';
import type { FieldContext } from '../meta/field-types/field-type.js';
import type { Meta } from '../meta/meta.js';
import { mayUseDocType, mayUseDocument } from '../permissions/document-access.js';
import { hideUnreadableFields } from '../permissions/hide-unreadable-fields.js';
import { keepUnwritableFields } from '../permissions/keep-unwritable-fields.js';
import { andThen, type MaybePromise } from '../async/maybe-promise.js';
import { permissionContext } from './unit-permissions.js';
import { permissionDenied } from '../permissions/permission-denied.js';
import { applyDefaults, coerceFields, mergePatch } from './build-document.js';
import { checkAmendment } from './check-amendment.js';
import { checkUpdateAfterSubmit } from './check-update-after-submit.js';
import { claimChildRows, stampChildRows } from './child-rows.js';
import { describeConstraintError } from './constraint-error.js';
import { deleteDocument } from './delete-document.js';
import type { DocContext } from './doc-context.js';
import { ACTION_RIGHT, checkDiscardable, docstatusAction, parseDocstatus, type DocAction } from './docstatus-transitions.js';
import { documentNotFound } from './document-not-found.js';
import type { DocumentGuard } from './document-guard.js';
import { DocumentRepository } from './document-repository.js';
import { applyFetchFrom } from './fetch-from.js';
import { checkModified, laterThan } from './modified-stamp.js';
import { findReferrers, linkExistsError } from './links/find-referrers.js';
import type { DocEvent, HookArgs } from './hooks.js';
import { nameDocument, validateName } from './naming/naming.js';
import { storeSecretFields } from './secret-fields.js';
import { deleteSingle, getSingle, loadSingle, updateSingle } from './singles/single-document.js';
import { checkLinks } from './links/check-links.js';
import { checkFieldValues, checkMandatory, checkSetOnlyOnce } from './validate-document.js';

/** Options of a permission check on a document. */
export interface AccessOptions {
  /** `false`: only the roles (with hooks and User Permissions) count, never a share. */
  readonly viaShares?: boolean;
}

/** Options of an insert. */
export interface InsertOptions {
  /** Keep a client-supplied name whatever the naming rule (v2 inserts). */
  readonly keepClientName?: boolean;
  /** Skip permission checks (installation, internal writes). */
  readonly ignorePermissions?: boolean;
}

/**
 * The hooks around the write of each action (reference run_before_save_methods and
 * run_post_save_methods); on_change follows all of them.
 */
const ACTION_EVENTS: Readonly<Record<DocAction, { readonly before: DocEvent; readonly after: readonly DocEvent[] }>> = {
  save: { before: 'before_save', after: ['on_update'] },
  submit: { before: 'before_submit', after: ['on_update', 'on_submit'] },
  update_after_submit: { before: 'before_update_after_submit', after: ['on_update_after_submit'] },
  cancel: { before: 'before_cancel', after: ['on_cancel'] },
};

/** Throws PermissionError for a refused right (DocumentService.authorize). */
function refuseUnless(allowed: boolean, ctx: DocContext, meta: Meta, right: PermissionType, doc: Doc | undefined): void {
  if (!allowed) throw permissionDenied(ctx.principal, meta, right, doc?.name);
}

/**
 * The document lifecycle as one ordered pipeline per operation:
 * permission -> build -> name -> validate -> hooks -> repository, inside the caller's transaction.
 * It serves every DocType: a Single's one document is read and saved through the same methods,
 * its rows in tabSingles being a matter of single-document.ts.
 * Which checks and hooks run depends on the docstatus action (save, submit, update after submit,
 * cancel; see docstatus-transitions.ts).
 */
export class DocumentService implements DocumentGuard {
  readonly #encryptionKey: string;

  /**
   * `encryptionKey`: the site's key for Password fields (site_config.json `encryption_key`); kept
   * here, not in any DocContext, so hooks and method handlers never see it. Without one, saving a
   * Password field fails.
   */
  constructor(options: { readonly encryptionKey?: string } = {}) {
    this.#encryptionKey = options.encryptionKey ?? '';
  }

  /** Stores the Password fields of `doc` in __Auth, encrypted (see secret-fields.ts). */
  storeSecrets(ctx: DocContext, meta: Meta, doc: Doc, before: Doc | undefined): Promise<void> {
    return storeSecretFields(ctx, meta, doc, before, this.#encryptionKey);
  }

  /** Exposed for the list and method layers, which read rows the same way. */
  repo(ctx: DocContext): DocumentRepository {
    return new DocumentRepository(ctx.dialect, (d) => ctx.metas.get(d));
  }

  /**
   * True when the principal may use `right` on `doc`, or, without a document, on some documents of
   * the DocType (role permissions, if_owner, `has_permission` hooks, User Permissions, shares).
   */
  can(ctx: DocContext, meta: Meta, right: PermissionType, doc?: Doc, options: AccessOptions = {}): MaybePromise<boolean> {
    const pc = permissionContext(ctx);
    return doc === undefined ? mayUseDocType(pc, meta, right) : mayUseDocument(pc, meta, right, doc, options);
  }

  /** Throws PermissionError unless {@link can} allows; at once when {@link can} answers at once. */
  authorize(ctx: DocContext, meta: Meta, right: PermissionType, doc?: Doc, options: AccessOptions = {}): MaybePromise<void> {
    const allowed = this.can(ctx, meta, right, doc, options);
    // No closure for an answer known at once (a GET asks twice).
    if (allowed instanceof Promise) return allowed.then((ok) => refuseUnless(ok, ctx, meta, right, doc));
    refuseUnless(allowed, ctx, meta, right, doc);
  }

  #fieldContext(ctx: DocContext, meta: Meta): FieldContext {
    return { doctype: meta.name, timeZone: ctx.settings.timeZone, user: ctx.principal.user };
  }

  /** A DocType that clients address directly; child DocTypes are reached through their parent. */
  #topLevel(ctx: DocContext, doctype: string): Meta {
    const meta = ctx.metas.get(doctype);
    if (meta.isChild) {
      throw new DataError(`${doctype} is a child table: read or write it through its parent document`);
    }
    return meta;
  }

  /**
   * Reads one document (read permission), without the fields the principal may not read. Checking
   * the DocType before loading makes a DocType the caller cannot read answer 403 for any name.
   */
  get(ctx: DocContext, doctype: string, name: string): MaybePromise<Doc> {
    const meta = this.#topLevel(ctx, doctype);
    if (meta.isSingle) return getSingle(ctx, this, meta, name);
    // Every step that answers at once is taken at once: a GET's own CPU is mostly such steps, and
    // on SQLite the whole read then needs no promise (docs/benchmarks.md "Where a GET's time goes").
    return andThen(this.authorize(ctx, meta, 'read'), () =>
      andThen(this.repo(ctx).load(ctx.q, meta, name), (doc) => {
        if (!doc) throw documentNotFound(meta, name);
        return andThen(this.authorize(ctx, meta, 'read', doc), () => hideUnreadableFields(ctx.principal, meta, doc, (d) => ctx.metas.get(d)));
      }),
    );
  }

  /**
   * Inserts a new document (create permission) and returns it as stored. `docstatus: 1` submits it
   * at once (submit permission); `amended_from` makes it an amendment of a cancelled document
   * (amend permission).
   */
  async insert(ctx: DocContext, doctype: string, data: Doc, opts: InsertOptions = {}): Promise<Doc> {
    const meta = this.#topLevel(ctx, doctype);
    // A Single has its one document already: inserting it saves it.
    if (meta.isSingle) return updateSingle(ctx, this, meta, data);
    const checked = !opts.ignorePermissions;
    if (checked) await this.authorize(ctx, meta, 'create');
    const docstatus = data.docstatus === undefined || data.docstatus === null ? 0 : parseDocstatus(data.docstatus);
    const action = docstatusAction(undefined, docstatus, meta.isSubmittable, meta.name);
    const fctx = this.#fieldContext(ctx, meta);
    const doc: Doc = {};
    claimChildRows(meta, data, undefined);
    mergePatch(meta, doc, data);
    if (checked) keepUnwritableFields(ctx.principal, meta, doc, undefined, (d) => ctx.metas.get(d));
    applyDefaults(meta, doc, fctx);
    coerceFields(meta, doc, fctx, (d) => ctx.metas.get(d));

    const stamp = now(ctx.settings.timeZone);
    const user = ctx.principal.user;
    Object.assign(doc, { owner: user, creation: stamp, modified: stamp, modified_by: user, docstatus, idx: 0 });
    // With its values in place the document itself must be creatable (hooks, User Permissions).
    if (checked) {
      await this.authorize(ctx, meta, 'create', doc);
      await this.#authorizeAction(ctx, meta, action, doc);
    }
    await checkAmendment(ctx, this, meta, doc, checked);
    const hookArgs: HookArgs = { doc, before: undefined, ctx };
    await ctx.hooks.run(meta.name, 'before_insert', hookArgs);
    const naming = { q: ctx.q, dialect: ctx.dialect, timeZone: ctx.settings.timeZone };
    doc.name = validateName(meta, await nameDocument(meta, doc, naming, { clientName: data.name, keepClientName: opts.keepClientName }));
    stampChildRows(meta, doc, stamp, user);
    await this.#beforeWrite(ctx, meta, hookArgs, action);
    await this.storeSecrets(ctx, meta, doc, undefined);
    // Hooks may have added rows; they get their standard columns too.
    stampChildRows(meta, doc, stamp, user);
    await this.#write(meta, doc, () => this.repo(ctx).insert(ctx.q, meta, doc, (err) => describeConstraintError(meta, doc, err)));
    await ctx.hooks.run(meta.name, 'after_insert', hookArgs);
    await this.#afterWrite(ctx, meta, hookArgs, action);
    return this.#present(ctx, meta, doc, checked);
  }

  /**
   * Stores a record fw writes about another document (a Workflow Action beside the document that
   * entered a state): named by its DocType's rule and stamped with `user` as owner, with its child
   * rows, and nothing else. No permission check, Link check, hook or live event: the caller vouches
   * for the values, and records written on every insert of a busy DocType cost that DocType's own
   * writes nearly nothing (docs/benchmarks.md "What a subsystem costs").
   */
  async insertRecord(ctx: DocContext, doctype: string, values: Doc, user: string): Promise<void> {
    const meta = ctx.metas.get(doctype);
    const stamp = now(ctx.settings.timeZone);
    const doc: Doc = { ...values, owner: user, creation: stamp, modified: stamp, modified_by: user, docstatus: 0, idx: 0 };
    doc.name = validateName(meta, await nameDocument(meta, doc, { q: ctx.q, dialect: ctx.dialect, timeZone: ctx.settings.timeZone }, {}));
    stampChildRows(meta, doc, stamp, user);
    await this.#write(meta, doc, () => this.repo(ctx).insert(ctx.q, meta, doc, (err) => describeConstraintError(meta, doc, err)));
  }

  /**
   * Merges `patch` into the stored document and saves it (write permission). A `modified` in the
   * patch must equal the stored one exactly, else TimestampMismatchError; a table key replaces
   * that child table. A `docstatus` in the patch submits (1) or cancels (2) as the transition
   * table allows; a submitted document keeps every field without `allow_on_submit`.
   */
  async update(ctx: DocContext, doctype: string, name: string, patch: Doc): Promise<Doc> {
    const meta = this.#topLevel(ctx, doctype);
    if (meta.isSingle) return updateSingle(ctx, this, meta, patch, name);
    await this.authorize(ctx, meta, 'write');
    const before = await this.repo(ctx).load(ctx.q, meta, name, { forUpdate: true });
    if (!before) throw documentNotFound(meta, name);
    await this.authorize(ctx, meta, 'write', before);
    checkModified(meta, before, patch);
    const from = parseDocstatus(before.docstatus);
    const to = patch.docstatus === undefined || patch.docstatus === null ? from : parseDocstatus(patch.docstatus);
    const action = docstatusAction(from, to, meta.isSubmittable, meta.name);
    await this.#authorizeAction(ctx, meta, action, before);

    const doc: Doc = structuredClone(before);
    claimChildRows(meta, patch, before);
    mergePatch(meta, doc, patch);
    keepUnwritableFields(ctx.principal, meta, doc, before, (d) => ctx.metas.get(d));
    coerceFields(meta, doc, this.#fieldContext(ctx, meta), (d) => ctx.metas.get(d));
    // The stored document was writable; the changed one must be too (a Link set outside the
    // User Permissions, a ToDo handed to someone else).
    await this.authorize(ctx, meta, 'write', doc);
    const stamp = laterThan(now(ctx.settings.timeZone), String(before.modified));
    Object.assign(doc, { docstatus: to, modified: stamp, modified_by: ctx.principal.user });
    stampChildRows(meta, doc, stamp, ctx.principal.user);
    const hookArgs: HookArgs = { doc, before, ctx };
    await this.#beforeWrite(ctx, meta, hookArgs, action);
    await this.storeSecrets(ctx, meta, doc, before);
    stampChildRows(meta, doc, stamp, ctx.principal.user);
    await this.#write(meta, doc, () => this.repo(ctx).update(ctx.q, meta, doc));
    await this.#afterWrite(ctx, meta, hookArgs, action);
    return this.#present(ctx, meta, doc, true);
  }

  /** Submits a draft (docstatus 0 -> 1), with `values` saved along; write and submit permission. */
  submit(ctx: DocContext, doctype: string, name: string, values: Doc = {}): Promise<Doc> {
    return this.update(ctx, doctype, name, { ...values, docstatus: 1 });
  }

  /** Cancels a submitted document (1 -> 2); write and cancel permission; refused while submitted documents link to it. */
  cancel(ctx: DocContext, doctype: string, name: string): Promise<Doc> {
    return this.update(ctx, doctype, name, { docstatus: 2 });
  }

  /**
   * Discards a draft (0 -> 2) without validation or cancel logic; only drafts of submittable
   * DocTypes, with write permission. Fires on_discard and on_change.
   */
  async discard(ctx: DocContext, doctype: string, name: string): Promise<Doc> {
    const meta = this.#topLevel(ctx, doctype);
    await this.authorize(ctx, meta, 'write');
    const before = meta.isSingle ? await this.load(ctx, doctype, name) : await this.repo(ctx).load(ctx.q, meta, name, { forUpdate: true });
    if (!before) throw documentNotFound(meta, name);
    await this.authorize(ctx, meta, 'write', before);
    checkDiscardable(parseDocstatus(before.docstatus), meta.isSubmittable, meta.name, name);
    const doc: Doc = structuredClone(before);
    const stamp = laterThan(now(ctx.settings.timeZone), String(before.modified));
    Object.assign(doc, { docstatus: 2, modified: stamp, modified_by: ctx.principal.user });
    stampChildRows(meta, doc, stamp, ctx.principal.user);
    await this.repo(ctx).update(ctx.q, meta, doc);
    const hookArgs: HookArgs = { doc, before, ctx };
    await ctx.hooks.run(meta.name, 'on_discard', hookArgs);
    await ctx.hooks.run(meta.name, 'on_change', hookArgs);
    return this.#present(ctx, meta, doc, true);
  }

  /** Deletes a document (delete permission) with its child rows; see deleteDocument. */
  async delete(ctx: DocContext, doctype: string, name: string): Promise<void> {
    const meta = this.#topLevel(ctx, doctype);
    if (meta.isSingle) await deleteSingle(ctx, this, meta, name);
    await deleteDocument(ctx, this, meta, name);
  }

  /**
   * The document as stored, child rows included, without permission checks or hidden fields; undefined
   * when there is none (a Single's one document is there whenever its name is the DocType's).
   */
  async load(ctx: DocContext, doctype: string, name: string): Promise<Doc | undefined> {
    const meta = ctx.metas.get(doctype);
    if (meta.isSingle) return name === meta.name ? loadSingle(ctx, meta) : undefined;
    return this.repo(ctx).load(ctx.q, meta, name);
  }

  /** Checks the right an action needs beyond create or write (submit, cancel). */
  async #authorizeAction(ctx: DocContext, meta: Meta, action: DocAction, doc: Doc): Promise<void> {
    const right = ACTION_RIGHT[action];
    if (right) await this.authorize(ctx, meta, right, doc);
  }

  /**
   * Everything between the built document and the write: fetch_from values, then per action the
   * validation (drafts and submits: before_validate, field checks, validate; writes on submitted
   * documents: field checks only; cancels: none), the action's before-hook, and for submitted
   * documents the allow_on_submit rule, checked after the hook so a hook cannot slip a change by.
   */
  async #beforeWrite(ctx: DocContext, meta: Meta, args: HookArgs, action: DocAction): Promise<void> {
    const { doc, before } = args;
    if (action !== 'cancel') await applyFetchFrom(ctx, meta, doc, before, { onlyAllowOnSubmit: action === 'update_after_submit' });
    if (action === 'save' || action === 'submit') {
      await ctx.hooks.run(meta.name, 'before_validate', args);
      await this.#checkFields(ctx, meta, doc);
      await ctx.hooks.run(meta.name, 'validate', args);
      if (before) checkSetOnlyOnce(meta, doc, before);
    } else if (action === 'update_after_submit') {
      await this.#checkFields(ctx, meta, doc);
    }
    await ctx.hooks.run(meta.name, ACTION_EVENTS[action].before, args);
    if (before && (action === 'update_after_submit' || action === 'cancel')) {
      const stored = structuredClone(before);
      coerceFields(meta, stored, this.#fieldContext(ctx, meta), (d) => ctx.metas.get(d));
      checkUpdateAfterSubmit(meta, doc, stored, (d) => ctx.metas.get(d));
    }
  }

  /** Mandatory fields, field values and links of the document and its rows. */
  async #checkFields(ctx: DocContext, meta: Meta, doc: Doc): Promise<void> {
    const metaOf = (d: string) => ctx.metas.get(d);
    checkMandatory(meta, doc, metaOf);
    checkFieldValues(meta, doc, this.#fieldContext(ctx, meta), metaOf);
    await checkLinks(meta, doc, {
      q: ctx.q,
      repo: this.repo(ctx),
      metaOf,
      knows: (d) => ctx.metas.has(d),
      linkerSubmittable: meta.isSubmittable,
    });
  }

  /**
   * The action's after-hooks, then on_change. A cancel is undone while submitted documents still
   * link to this one; on_cancel runs first so a controller can cancel its dependants.
   */
  async #afterWrite(ctx: DocContext, meta: Meta, args: HookArgs, action: DocAction): Promise<void> {
    for (const event of ACTION_EVENTS[action].after) await ctx.hooks.run(meta.name, event, args);
    if (action === 'cancel') {
      const name = String(args.doc.name);
      const referrers = await findReferrers(ctx, meta.name, name, { docstatus: 1, ignoreFields: AMENDED_FROM });
      if (referrers.length > 0) throw linkExistsError(meta.name, name, referrers);
    }
    await ctx.hooks.run(meta.name, 'on_change', args);
  }

  /** Runs a repository write, turning constraint violations into messages with the DocType's words. */
  async #write(meta: Meta, doc: Doc, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      throw describeConstraintError(meta, doc, err);
    }
  }

  /** The stored form turned into the JSON form, as a fresh read by the principal would return it. */
  #present(ctx: DocContext, meta: Meta, doc: Doc, hideFields: boolean): Doc {
    const repo = this.repo(ctx);
    const out = repo.toDoc(meta, doc);
    for (const tf of meta.tableFields) {
      const rows = doc[tf.def.fieldname];
      if (Array.isArray(rows)) out[tf.def.fieldname] = rows.map((r) => repo.toDoc(ctx.metas.get(tf.def.options ?? ''), r as Doc));
    }
    return hideFields ? hideUnreadableFields(ctx.principal, meta, out, (d) => ctx.metas.get(d)) : out;
  }
}

/** A cancel is not held back by the amendments of the document (reference `check_if_doc_is_linked`). */
const AMENDED_FROM: ReadonlySet<string> = new Set(['amended_from']);
