import { listQueryAfterAccess } from '../documents/lists/list-access.js';
import type { DocumentService } from '../documents/document-service.js';
import { COMMITTED_EVENTS, type DocEvent, type DocHook, type HookRegistry } from '../documents/hooks.js';
import { countDocuments, listDocuments } from '../documents/lists/list-documents.js';
import * as errors from '../errors/index.js';
import { createAppJobs } from '../jobs/app-jobs.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { MailService } from '../mail/register-mail.js';
import type { Doc } from '../meta/doctype.js';
import type { HttpVerb, MethodOptions, MethodRegistry } from '../rpc/method-registry.js';
import type { RealtimePublisher } from '../realtime/realtime-publisher.js';
import type { AppApi, AppHooks, AppMethods, AppPermissions } from './app.js';

/** The site's registries and services an app registers into. */
export interface AppServices {
  readonly hooks: HookRegistry;
  readonly methods: MethodRegistry;
  readonly documents: DocumentService;
  /** The site's job queue (absent only in unit tests of the API itself). */
  readonly jobs?: JobQueue;
  readonly realtime: RealtimePublisher;
  /** Outgoing mail (absent only in unit tests of the API itself). */
  readonly mail?: MailService;
}

/*
 * Runtime images of the DocEvent and HttpVerb types, so a JavaScript app's misspelt event or verb
 * fails at load instead of never firing. `Complete` makes the compiler fail here when a member is
 * added to one of those types and not to its list.
 */
const DOC_EVENTS = [
  'before_insert',
  'before_validate',
  'validate',
  'before_save',
  'before_submit',
  'before_update_after_submit',
  'before_cancel',
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
const HTTP_VERBS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const satisfies readonly HttpVerb[];
type Complete<T, Listed> = [Exclude<T, Listed>] extends [never] ? true : never;
const eventsComplete: Complete<DocEvent, (typeof DOC_EVENTS)[number]> = true;
const verbsComplete: Complete<HttpVerb, (typeof HTTP_VERBS)[number]> = true;
void [eventsComplete, verbsComplete];

const METHOD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;
const DOC_METHOD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The `AppApi` handed to one app's `register`: the site's registries behind checks that keep the
 * app to its namespace and catch mistakes at load (an unknown event, a handler that is not a
 * function, a method path outside `<app>.` or one already taken). Errors name the app.
 */
export function createAppApi(name: string, services: AppServices): AppApi {
  const fail = (problem: string): never => {
    throw new Error(`App "${name}": ${problem}`);
  };
  const checkDocType = (doctype: unknown, what: string) => {
    if (typeof doctype !== 'string' || doctype === '') fail(`${what}: the DocType must be a name or "*", got ${JSON.stringify(doctype)}`);
  };
  const checkFunction = (value: unknown, what: string) => {
    if (typeof value !== 'function') fail(`${what}: the handler must be a function`);
  };
  const checkVerbs = (verbs: unknown, what: string) => {
    if (verbs === undefined) return;
    if (!Array.isArray(verbs) || verbs.some((v) => !(HTTP_VERBS as readonly unknown[]).includes(v))) {
      fail(`${what}: "methods" must list verbs among ${HTTP_VERBS.join(', ')}, got ${JSON.stringify(verbs)}`);
    }
  };

  const hooks: AppHooks = {
    on(doctype, event, hook) {
      const what = `hooks.on(${JSON.stringify(doctype)}, ${JSON.stringify(event)})`;
      checkDocType(doctype, what);
      if (!(DOC_EVENTS as readonly unknown[]).includes(event)) fail(`${what}: unknown event (known: ${DOC_EVENTS.join(', ')})`);
      checkFunction(hook, what);
      services.hooks.on(doctype, event, chained(name, doctype, event, hook));
      return hooks;
    },
    onCommitted(doctype, event, listener) {
      const what = `hooks.onCommitted(${JSON.stringify(doctype)}, ${JSON.stringify(event)})`;
      checkDocType(doctype, what);
      if (!(COMMITTED_EVENTS as readonly unknown[]).includes(event)) fail(`${what}: unknown event (known: ${COMMITTED_EVENTS.join(', ')})`);
      checkFunction(listener, what);
      services.hooks.onCommitted(doctype, event, listener);
      return hooks;
    },
  };

  const permissions: AppPermissions = {
    onHasPermission(doctype, hook) {
      const what = `permissions.onHasPermission(${JSON.stringify(doctype)})`;
      checkDocType(doctype, what);
      checkFunction(hook, what);
      services.hooks.permissions.onHasPermission(doctype, hook);
      return permissions;
    },
    onQueryConditions(doctype, hook) {
      const what = `permissions.onQueryConditions(${JSON.stringify(doctype)})`;
      checkDocType(doctype, what);
      checkFunction(hook, what);
      services.hooks.permissions.onQueryConditions(doctype, hook);
      return permissions;
    },
  };

  const methods: AppMethods = {
    register(path, handler, options: MethodOptions = {}) {
      const what = `methods.register(${JSON.stringify(path)})`;
      if (typeof path !== 'string' || !path.startsWith(`${name}.`) || !METHOD_PATH.test(path)) {
        fail(`${what}: a method path is dotted names under the app's own namespace, such as "${name}.api.get_stats"`);
      }
      if (services.methods.resolve(path)) fail(`${what}: a method is already registered at this path`);
      checkFunction(handler, what);
      checkVerbs(options.methods, what);
      services.methods.register(path, handler, options);
      return methods;
    },
    registerDocMethod(doctype, method, handler, options = {}) {
      const what = `methods.registerDocMethod(${JSON.stringify(doctype)}, ${JSON.stringify(method)})`;
      checkDocType(doctype, what);
      if (typeof method !== 'string' || !DOC_METHOD_NAME.test(method)) fail(`${what}: a method name is an identifier such as "mark_done"`);
      if (services.methods.docMethods.resolve(doctype, method)?.doctype === doctype) {
        fail(`${what}: ${doctype} already has a method of this name`);
      }
      checkFunction(handler, what);
      checkVerbs(options.methods, what);
      services.methods.registerDocMethod(doctype, method, handler, options);
      return methods;
    },
  };

  return {
    name,
    hooks,
    permissions,
    methods,
    documents: services.documents,
    jobs: createAppJobs(name, services.jobs, fail),
    async list(ctx, doctype, params = {}) {
      return (await listDocuments(ctx, await listQueryAfterAccess(ctx, doctype, { ...params, as_dict: true }))).rows as Doc[];
    },
    async count(ctx, doctype, filters) {
      return countDocuments(ctx, await listQueryAfterAccess(ctx, doctype, { filters }));
    },
    errors,
    realtime: {
      publish: (event, message, target) => services.realtime.publish(event, message, target),
      msgprint: (user, message, target) => services.realtime.msgprint(user, message, target),
      progress: (update, target) => services.realtime.progress(update, target),
    },
    mail: {
      send: (ctx, args) => (services.mail ? services.mail.send(ctx, args) : Promise.reject(new Error(`App "${name}": mail is not available here`))),
    },
  };
}

/**
 * Wraps an app's hook so that returning without calling `next()` fails the write: it would
 * silently skip every hook after it, another app's validation included.
 */
function chained(app: string, doctype: string, event: DocEvent, hook: DocHook): DocHook {
  return async (args, next, firedFor) => {
    let called = false;
    await hook(
      args,
      async () => {
        called = true;
        await next();
      },
      firedFor,
    );
    if (!called) {
      throw new Error(`App "${app}": its ${event} hook on ${doctype} returned without calling next(); call \`await next()\` or throw`);
    }
  };
}
