import { getDocumentValues } from '../../documents/lists/document-values.js';
import { PermissionError } from '../../errors/index.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { fieldnameArg } from './client-args.js';

/**
 * `fw.client.validate_link` (a Link field checks what was typed): `{"name": <the name as stored>}`
 * when the document exists, `{"name": null}` when not, plus the values of `fields` when asked and
 * the caller may read the document. Needs select or read on the DocType (403 otherwise), since
 * the answer tells whether a name exists.
 */
async function validateLink({ ctx, services, args }: MethodCall): Promise<Record<string, unknown>> {
  const meta = ctx.metas.get(String(args.doctype));
  if (!(await services.documents.can(ctx, meta, 'select')) && !(await services.documents.can(ctx, meta, 'read'))) {
    throw new PermissionError(`You do not have Read or Select Permissions for ${meta.name}`, { doctype: meta.name });
  }
  const docname = String(args.docname);
  const stored = (await services.documents.load(ctx, meta.name, docname))?.name;
  const values: Record<string, unknown> = { name: stored ?? null };
  const fields = args.fields === undefined || args.fields === null || args.fields === '' ? [] : fieldnameArg(args.fields, 'fields');
  if (stored === undefined || fields.length === 0) return values;
  try {
    const found = await getDocumentValues(ctx, services.documents, meta.name, fields, { name: String(stored) }, { asDict: true });
    Object.assign(values, found);
  } catch (err) {
    // A caller who may select but not read the document still learns that it exists, as in the reference.
    if (!(err instanceof PermissionError)) throw err;
  }
  return values;
}

/** Link validation: validate_link. */
export function registerLinkMethods(methods: MethodRegistry): void {
  methods.register('fw.client.validate_link', validateLink, {
    description: 'Whether a linked document exists: `{"name": <name> | null}` plus the values of `fields`.',
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'docname', type: 'string', required: true },
      { name: 'fields', type: 'any' },
    ],
  });
}
