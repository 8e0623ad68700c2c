import { PermissionError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { mayRead } from './topics.js';

/**
 * `has_permission(doctype, name)`: true when the caller may read the document (or, with no name,
 * some documents of the DocType); otherwise 403, as the reference's realtime check answers. A
 * missing document is a 403 too, so the answer never tells which names exist.
 */
async function hasPermission({ ctx, services, args }: MethodCall): Promise<boolean> {
  const doctype = String(args.doctype);
  const name = args.name === undefined || args.name === null || args.name === '' ? undefined : String(args.name);
  if (!(await mayRead(ctx, services.documents, doctype, name))) {
    throw new PermissionError(name === undefined ? `No read permission on ${doctype}` : `No read permission on ${doctype} ${name}`);
  }
  return true;
}

/**
 * `fw.realtime.has_permission`, also answering as `frappe.realtime.has_permission`
 * (`fw.realtime.get_user_info` is a built-in method: rpc/builtin/realtime-methods.ts).
 */
export function registerRealtimeHasPermission(methods: MethodRegistry): void {
  methods.register('fw.realtime.has_permission', hasPermission, {
    allowGuest: true,
    methods: ['GET', 'POST'],
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'name', type: 'string' },
    ],
  });
}
