import { isValidTimeZone } from '../datetime/clock.js';
import type { HookRegistry } from '../documents/hooks.js';
import { ValidationError } from '../errors/index.js';
import { corsEntries, isCorsEntry, parseSessionExpiry, SYSTEM_SETTINGS } from '../settings/settings.js';

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/**
 * System Settings: values are checked before they are stored (a bad time zone or session expiry
 * would otherwise be ignored silently by the settings function), and a save bumps the metadata
 * version so every process reads the new settings on its next request.
 */
export function registerSystemSettingsController(hooks: HookRegistry): void {
  hooks.on(SYSTEM_SETTINGS, 'validate', async ({ doc }, next) => {
    const zone = text(doc.time_zone);
    if (zone !== '' && !isValidTimeZone(zone)) {
      throw new ValidationError(`Time Zone ${zone} is not a valid IANA time zone such as Europe/Berlin`, { doctype: SYSTEM_SETTINGS });
    }
    const expiry = text(doc.session_expiry);
    if (expiry !== '' && parseSessionExpiry(expiry) === undefined) {
      throw new ValidationError('Session Expiry must be in format hh:mm (more than 00:00), e.g. 168:00', { doctype: SYSTEM_SETTINGS });
    }
    const bad = corsEntries(text(doc.allow_cors)).find((entry) => !isCorsEntry(entry));
    if (bad !== undefined) {
      throw new ValidationError(`Allow CORS: ${bad} is not * or an origin such as https://app.example.com`, { doctype: SYSTEM_SETTINGS });
    }
    await next();
  });

  hooks.on(SYSTEM_SETTINGS, 'on_update', async ({ ctx }, next) => {
    await ctx.metas.bumpVersion(ctx.q);
    await next();
  });
}
