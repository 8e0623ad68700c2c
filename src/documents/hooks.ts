import type { Doc } from '../meta/doctype.js';
import { PermissionHooks } from '../permissions/permission-hooks.js';
import type { DocContext } from './doc-context.js';

/**
 * The document events controllers can hook, in the order the lifecycle fires them (docs/architecture.md "The document pipeline"):
 * a save runs before_save ... on_update; a submit before_submit ... on_update, on_submit; a write on
 * a submitted document before_update_after_submit ... on_update_after_submit; a cancel
 * before_cancel ... on_cancel; a discard on_discard. on_change follows every successful write.
 * A rename fires after_rename once everything pointing at the document has moved (reference
 * `after_rename`): `before` is the document under its old name, `doc` under the new one.
 */
export type DocEvent =
  | 'before_insert'
  | 'before_validate'
  | 'validate'
  | 'before_save'
  | 'before_submit'
  | 'before_update_after_submit'
  | 'before_cancel'
  | 'after_insert'
  | 'on_update'
  | 'on_submit'
  | 'on_update_after_submit'
  | 'on_cancel'
  | 'on_discard'
  | 'on_change'
  | 'on_trash'
  | 'after_delete'
  | 'after_rename';

/** What a hook receives besides the document. */
export interface HookArgs {
  readonly doc: Doc;
  /** The stored document before this save; undefined on insert. */
  readonly before: Doc | undefined;
  readonly ctx: DocContext;
}

/**
 * A hook: does its work and calls `next()` to let later hooks run (or throws to stop the write).
 * `doctype` names the DocType the event is about, for hooks registered on `*`.
 */
export type DocHook = (args: HookArgs, next: () => Promise<void>, doctype: string) => Promise<void>;

/** The events that can also be heard after the commit: those that follow a stored change. */
export const COMMITTED_EVENTS = [
  'after_insert',
  'on_update',
  'on_submit',
  'on_update_after_submit',
  'on_cancel',
  'on_discard',
  'on_change',
  'on_trash',
  'after_delete',
  'after_rename',
] as const satisfies readonly DocEvent[];

/** An event whose writes are committed. */
export type CommittedEvent = (typeof COMMITTED_EVENTS)[number];

/** A document event heard once its transaction committed (never for a rolled-back write). */
export interface CommittedDocEvent {
  readonly doctype: string;
  readonly name: string;
  readonly event: CommittedEvent;
  /** The document as the event saw it (a copy: later writes in the same unit do not change it). */
  readonly doc: Doc;
  /** The stored document before the change (for after_rename, under its old name). */
  readonly before: Doc | undefined;
  /** Who made the change. */
  readonly user: string;
  /** For after_rename: the name the document had. */
  readonly oldName?: string;
}

/** Hears a committed document event; runs outside the transaction, so it cannot undo it. */
export type CommittedListener = (event: CommittedDocEvent) => void | Promise<void>;

/** Controller hooks by DocType and event; built-ins and apps register through the same calls. */
export class HookRegistry {
  readonly #hooks = new Map<string, DocHook[]>();
  readonly #committed = new Map<string, CommittedListener[]>();
  /**
   * The hooks and committed listeners an event of a DocType runs, `*` ones first, resolved once per
   * (DocType, event) since every write asks for them; registering anything clears this.
   */
  readonly #resolved = new Map<string, { readonly hooks: readonly DocHook[]; readonly listeners: readonly CommittedListener[] }>();
  /** `has_permission` and `permission_query_conditions` hooks, registered by DocType like the events. */
  readonly permissions = new PermissionHooks<DocContext>();

  /** Adds `hook` for `event` on `doctype` (`*` for every DocType), after those already registered. */
  on(doctype: string, event: DocEvent, hook: DocHook): this {
    const key = `${doctype}\u0000${event}`;
    const list = this.#hooks.get(key) ?? [];
    list.push(hook);
    this.#hooks.set(key, list);
    this.#resolved.clear();
    return this;
  }

  /**
   * Adds `listener` for `event` on `doctype` (`*` for every DocType), heard after the unit of work
   * that fired the event committed, in the order the events fired (the reference's after_commit
   * document hooks; docs/architecture.md, "After a commit").
   */
  onCommitted(doctype: string, event: CommittedEvent, listener: CommittedListener): this {
    const key = `${doctype}\u0000${event}`;
    const list = this.#committed.get(key) ?? [];
    list.push(listener);
    this.#committed.set(key, list);
    this.#resolved.clear();
    return this;
  }

  /** Runs the chain for `event`: hooks for every DocType first, then the DocType's own. */
  async run(doctype: string, event: DocEvent, args: HookArgs): Promise<void> {
    const { hooks: chain, listeners } = this.#resolve(doctype, event);
    if (chain.length > 0) {
      const step = async (i: number): Promise<void> => {
        const hook = chain[i];
        if (hook) await hook(args, () => step(i + 1), doctype);
      };
      await step(0);
    }
    if (listeners.length > 0) this.#deferCommitted(doctype, event, args, listeners);
  }

  #resolve(doctype: string, event: DocEvent): { readonly hooks: readonly DocHook[]; readonly listeners: readonly CommittedListener[] } {
    const key = `${doctype}\u0000${event}`;
    let resolved = this.#resolved.get(key);
    if (resolved === undefined) {
      const both = <T>(map: ReadonlyMap<string, T[]>): T[] => [...(map.get(`*\u0000${event}`) ?? []), ...(map.get(key) ?? [])];
      resolved = { hooks: both(this.#hooks), listeners: both(this.#committed) };
      this.#resolved.set(key, resolved);
    }
    return resolved;
  }

  /** Hands the event to its committed listeners once the unit commits (the chain above agreed to it). */
  #deferCommitted(doctype: string, event: DocEvent, args: HookArgs, listeners: readonly CommittedListener[]): void {
    const heard: CommittedDocEvent = {
      doctype,
      name: String(args.doc.name),
      event: event as CommittedEvent,
      doc: { ...args.doc },
      before: args.before,
      user: args.ctx.principal.user,
      ...(event === 'after_rename' && args.before ? { oldName: String(args.before.name) } : {}),
    };
    // One callback per event, listeners in registration order: a failing listener is logged by the
    // unit and does not keep the others from hearing it.
    for (const listener of listeners) args.ctx.unit.afterCommit(() => listener(heard));
  }
}
