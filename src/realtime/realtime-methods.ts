import { PermissionError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { mayRead } from './topics.js';

/**
 * `get_user_info`: who the caller is, as the reference's realtime server asks before it admits a
 * socket (`{user, user_type, installed_apps}`); fw admits sockets in process, and apps may still ask.
 */
async function getUserInfo({ ctx, site }: MethodCall): Promise<Record<string, unknown>> {
  return { user: ctx.principal.user, user_type: ctx.principal.userType, installed_apps: site.config.apps };
}

/**
 * `has_permission(doctype, name)`: true when the caller may read the document (or, with no name,
 * some documents of the DocType); otherwise 403, as the reference's realtime check answers. A
 * missing document is a 403 too, so the answer never tells which names exist.
 */
async function hasPermission({ ctx, site, args }: MethodCall): Promise<boolean> {
  const doctype = String(args.doctype);
  const name = args.name === undefined || args.name === null || args.name === '' ? undefined : String(args.name);
  if (!(await mayRead(ctx, site, doctype, name))) {
    throw new PermissionError(name === undefined ? `No read permission on ${doctype}` : `No read permission on ${doctype} ${name}`);
  }
  return true;
}

/** The realtime methods, under `fw.realtime.*` and (by the registry's aliasing) `frappe.realtime.*`. */
export function registerRealtimeMethods(methods: MethodRegistry): void {
  methods.register('fw.realtime.get_user_info', getUserInfo, { allowGuest: true, methods: ['GET', 'POST'] });
  methods.register('fw.realtime.has_permission', hasPermission, {
    allowGuest: true,
    methods: ['GET', 'POST'],
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'name', type: 'string' },
    ],
  });
}
