import globalSearchDocType from './global-search-doc-type.json' with { type: 'json' };
import globalSearchSettings from './global-search-settings.json' with { type: 'json' };

/** The reference's global search DocTypes, child first; checked and frozen with the core DocTypes. */
export const SEARCH_DOCTYPE_JSON: readonly unknown[] = [globalSearchDocType, globalSearchSettings];

export const GLOBAL_SEARCH_SETTINGS = 'Global Search Settings';
export const GLOBAL_SEARCH_DOCTYPE = 'Global Search DocType';
