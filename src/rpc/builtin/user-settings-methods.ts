import { FrappeTypeError } from '../../errors/index.js';
import { mergeUserSettings, readUserSettings } from '../../user-settings/user-settings-store.js';
import type { MethodCall, MethodRegistry } from '../method-registry.js';
import { asObject } from './client-args.js';

/*
 * The caller's own settings per DocType (docs/api.md "Per-user settings"): what the list, report and
 * form views remember (columns, filters, sort, page length). Each user reads and writes only their
 * own; the DocType must exist, but its documents are not touched, so no right on it is needed.
 */

/** `fw.model.utils.user_settings.get(doctype)`: the settings as JSON text (`"{}"` when none), as the reference answers. */
async function get({ ctx, args }: MethodCall): Promise<string> {
  const doctype = ctx.metas.get(String(args.doctype)).name;
  return JSON.stringify(await readUserSettings(ctx.q, ctx.dialect, ctx.principal.user, doctype));
}

/** Settings above this size are refused: they are a few view choices, never data. */
const MAX_SETTINGS_CHARS = 64 * 1024;

/** `fw.model.utils.user_settings.save(doctype, user_settings)`: merges the given keys into the stored settings; answers what was given. */
async function save({ ctx, args }: MethodCall): Promise<Record<string, unknown>> {
  const doctype = ctx.metas.get(String(args.doctype)).name;
  const given = args.user_settings === undefined || args.user_settings === null ? {} : asObject(args.user_settings, 'user_settings');
  if (JSON.stringify(given).length > MAX_SETTINGS_CHARS) throw new FrappeTypeError(`user_settings must be at most ${MAX_SETTINGS_CHARS} characters of JSON`);
  if (ctx.principal.user === 'Guest') return given;
  await mergeUserSettings(ctx.q, ctx.dialect, ctx.principal.user, doctype, given);
  return given;
}

export function registerUserSettingsMethods(methods: MethodRegistry): void {
  methods.register('fw.model.utils.user_settings.get', get, {
    description: "The caller's saved settings for a DocType, as JSON text.",
    params: [{ name: 'doctype', type: 'string', required: true }],
  });
  methods.register('fw.model.utils.user_settings.save', save, {
    methods: ['POST', 'PUT'],
    description: "Merges settings into the caller's saved settings for a DocType.",
    params: [
      { name: 'doctype', type: 'string', required: true },
      { name: 'user_settings', type: 'object' },
    ],
  });
}
