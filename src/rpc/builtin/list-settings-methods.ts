import { omitNulls } from '../../documents/omit-nulls.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { asObject } from './client-args.js';

/** The DocType holding each DocType's list view settings (docs/api.md "List actions"). */
const LIST_VIEW_SETTINGS = 'List View Settings';

/**
 * `fw.desk.reportview.get_list_settings(doctype)`: the List View Settings of a DocType the caller
 * may read (they shape its list for everyone), or nothing when none were saved.
 */
async function getListSettings({ ctx, services, args }: MethodCall): Promise<unknown> {
  const meta = ctx.metas.get(String(args.doctype));
  await services.documents.authorize(ctx, meta, 'read');
  const stored = await services.documents.load(ctx, LIST_VIEW_SETTINGS, meta.name);
  return stored === undefined ? null : omitNulls(stored);
}

/**
 * `fw.desk.reportview.set_list_settings(doctype, values)`: saves the given values into the DocType's
 * List View Settings, creating them on first use; the rights on List View Settings apply (System
 * Managers by default). Answers nothing, as the reference.
 */
async function setListSettings({ ctx, services, args }: MethodCall): Promise<null> {
  const meta = ctx.metas.get(String(args.doctype));
  const values = asObject(args.values ?? {}, 'values');
  const { name: _name, doctype: _doctype, ...fields } = values;
  const stored = await services.documents.load(ctx, LIST_VIEW_SETTINGS, meta.name);
  if (stored === undefined) await services.documents.insert(ctx, LIST_VIEW_SETTINGS, { ...fields, name: meta.name });
  else await services.documents.update(ctx, LIST_VIEW_SETTINGS, meta.name, fields);
  return null;
}

export function registerListSettingsMethods(methods: MethodRegistry): void {
  methods.register('fw.desk.reportview.get_list_settings', getListSettings, {
    description: "A DocType's List View Settings, or nothing.",
    params: [{ name: 'doctype', type: 'string', required: true }],
  });
  methods.register('fw.desk.reportview.set_list_settings', setListSettings, {
    methods: ['POST', 'PUT'],
    description: "Saves a DocType's List View Settings.",
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'values', type: 'object', required: true },
    ],
  });
}
