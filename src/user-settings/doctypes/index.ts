import listViewSettings from './list-view-settings.json' with { type: 'json' };

/** The user settings' DocTypes; checked and frozen with the other built-in DocTypes (site/built-in-doctypes.ts). */
export const USER_SETTINGS_DOCTYPE_JSON: readonly unknown[] = [listViewSettings];
