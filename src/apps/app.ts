import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { CommittedEvent, CommittedListener, DocEvent, DocHook } from '../documents/hooks.js';
import type * as errors from '../errors/index.js';
import type { AppJobs } from '../jobs/app-jobs.js';
import type { AppMailArgs } from '../mail/app-mail.js';
import type { Doc, DocTypeDef } from '../meta/doctype.js';
import type { HasPermissionHook as AnyHasPermissionHook, PermissionQueryHook as AnyPermissionQueryHook } from '../permissions/permission-hooks.js';
import type { DocMethodHandler, DocMethodOptions } from '../rpc/doc-methods.js';
import type { MethodHandler, MethodOptions } from '../rpc/method-registry.js';
import type { ProgressUpdate, PublishTarget } from '../realtime/realtime-publisher.js';

/** A `has_permission` hook of an app: handed the unit of work as a DocContext. */
export type HasPermissionHook = AnyHasPermissionHook<DocContext>;
/** A `permission_query_conditions` hook of an app. */
export type PermissionQueryHook = AnyPermissionQueryHook<DocContext>;

/*
 * The contract between fw and an app. An app is an ES module whose default export (or export named
 * `app`) is an `App`; fw imports it when a site lists it in site_config.json `"apps"`, installs its
 * DocTypes and calls `register` once per opened site, after the built-in behaviour is registered.
 */

/** An app: its name, the DocTypes it ships and the behaviour it registers. */
export interface App {
  /**
   * A lower-case identifier (`library`, `my_crm`): the namespace of the app's whitelisted methods
   * (`library.api.lend`) and the `module` its DocTypes are stored under.
   */
  readonly name: string;
  /** DocType definitions, or a folder of DocType JSON files relative to the app's module file. */
  readonly doctypes?: readonly DocTypeDef[] | string;
  /** Registers hooks and methods; called once for every site that opens with the app. */
  register?(api: AppApi): void | Promise<void>;
}

/** Controller hooks, as the built-in controllers register them. */
export interface AppHooks {
  /**
   * Adds `hook` for `event` on `doctype` (`*` for every DocType), after the built-in hooks. The
   * hook must call `next()` (or throw to refuse the write): one that returns without calling it
   * fails the write, since it would silently skip the hooks after it.
   */
  on(doctype: string, event: DocEvent, hook: DocHook): AppHooks;
  /**
   * Adds `listener` for `event` on `doctype` (`*` for every DocType), heard once the write that
   * fired it committed, never for one rolled back. It runs outside the transaction: what it does
   * cannot undo the write, and a failure is logged (docs/apps.md, "After the commit").
   */
  onCommitted(doctype: string, event: CommittedEvent, listener: CommittedListener): AppHooks;
}

/** Permission hooks; they can only narrow what the role permissions allow. */
export interface AppPermissions {
  /** Adds a `has_permission` hook for `doctype`: returning `false` denies. */
  onHasPermission(doctype: string, hook: HasPermissionHook): AppPermissions;
  /** Adds a `permission_query_conditions` hook for `doctype`: the condition narrows lists and counts. */
  onQueryConditions(doctype: string, hook: PermissionQueryHook): AppPermissions;
}

/** Whitelisted methods, reached at `/api/method/<path>` and `/api/v2/method/<path>`. */
export interface AppMethods {
  /** Registers a method; `path` must start with the app's name and a dot (`library.api.lend`). */
  register(path: string, handler: MethodHandler, options?: MethodOptions): AppMethods;
  /** Registers a document method of `doctype` (`*`: every DocType), reached through run_doc_method. */
  registerDocMethod(doctype: string, name: string, handler: DocMethodHandler, options?: DocMethodOptions): AppMethods;
}

/**
 * Live events to the site's Socket.IO and event-stream clients (docs/realtime.md, "For apps"). The
 * target is a `room`, a `user`, a document (`doctype` + `docname`) or a `taskId`; with no target,
 * every System User (`all`). `afterCommit: true` (with `ctx`) sends only once the write committed.
 * Messages over `realtime_max_message_bytes` and the `eval_js` event are refused.
 */
export interface AppRealtime {
  publish(event: string, message: unknown, target?: PublishTarget): void;
  /** A `msgprint` to one user: a text, or `{message, title, indicator}`. */
  msgprint(user: string, message: string | { message: string; title?: string; indicator?: string }, target?: Omit<PublishTarget, 'user' | 'room'>): void;
  /** A `progress` event `{percent, title, description}`. */
  progress(update: ProgressUpdate, target: PublishTarget): void;
}

/** List parameters, as `GET /api/resource/<doctype>` takes them. */
export interface ListParams {
  readonly fields?: readonly string[] | string;
  /** `{field: value}`, `[[field, op, value], ...]` or the JSON text of either. */
  readonly filters?: unknown;
  readonly or_filters?: unknown;
  readonly order_by?: string;
  readonly group_by?: string;
  readonly limit_start?: number;
  /** Page size; 0 for every row. The default is 20, as over HTTP. */
  readonly limit_page_length?: number;
  /** The parent DocType, when listing a child DocType. */
  readonly parent?: string;
}

/** What `register` receives: the site's registries, fenced to the app. */
export interface AppApi {
  /** The app's name. */
  readonly name: string;
  readonly hooks: AppHooks;
  readonly permissions: AppPermissions;
  readonly methods: AppMethods;
  /** The site's document service: get, insert, update, delete with permission checks and hooks. */
  readonly documents: DocumentService;
  /** Background jobs: register handlers, enqueue work (inside a unit: only if it commits). */
  readonly jobs: AppJobs;
  /** The rows of `doctype` the context's principal may read, as objects (as `frappe.get_list`). */
  list(ctx: DocContext, doctype: string, params?: ListParams): Promise<Doc[]>;
  /** How many documents of `doctype` match `filters` among those the principal may read. */
  count(ctx: DocContext, doctype: string, filters?: unknown): Promise<number>;
  /**
   * fw's error classes: throw `new api.errors.ValidationError(...)` for a 417. Taken from here
   * rather than imported, so they are the very classes the HTTP layer recognises.
   */
  readonly errors: typeof errors;
  /** Live events to connected clients. */
  readonly realtime: AppRealtime;
  /** Outgoing mail (docs/mail.md "Sending from an app"). */
  readonly mail: AppMail;
}

/** `api.mail`: queue mail in the caller's unit of work; it is sent after the commit. */
export interface AppMail {
  /**
   * Queues a mail (recipients, cc, bcc, subject + message or template + args, reference_doctype
   * and reference_name, attachments as File names, send_after, headers, add_unsubscribe_link);
   * answers the Email Queue names.
   */
  send(ctx: DocContext, args: AppMailArgs): Promise<string[]>;
}
