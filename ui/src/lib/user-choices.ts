/*
 * The choices of a User's Language and of a Time Zone (docs/admin-ui.md "Users"): time zones are
 * the browser's own IANA list, languages a short list of common codes named in the reader's
 * language. A stored value outside the list stays offered, so opening a form never changes it.
 */

const LANGUAGES = [
  'ar',
  'cs',
  'da',
  'de',
  'el',
  'en',
  'en-GB',
  'es',
  'fa',
  'fi',
  'fr',
  'he',
  'hi',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'nb',
  'nl',
  'pl',
  'pt',
  'pt-BR',
  'ro',
  'ru',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh',
  'zh-TW',
];

export interface Choice {
  value: string;
  label: string;
}

function withCurrent(list: Choice[], current: string): Choice[] {
  const out = [{ value: '', label: '—' }, ...list];
  if (current && !list.some((c) => c.value === current)) out.push({ value: current, label: current });
  return out;
}

export function languageChoices(current: string, displayLocale?: string): Choice[] {
  let names: Intl.DisplayNames | undefined;
  try {
    names = new Intl.DisplayNames(displayLocale ? [displayLocale] : undefined, { type: 'language' });
  } catch {
    // No DisplayNames: the codes alone.
  }
  const list = LANGUAGES.map((code) => ({ value: code, label: names ? `${names.of(code) ?? code} (${code})` : code }));
  return withCurrent(list, current);
}

export function timeZoneChoices(current: string): Choice[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const list = (zones.includes('UTC') ? zones : ['UTC', ...zones]).map((z) => ({ value: z, label: z }));
  return withCurrent(list, current);
}

/** The fields shown as these choices: a User's language, and any Time Zone field. */
export function choicesFor(doctype: string, fieldname: string, current: string): Choice[] | undefined {
  if (fieldname === 'time_zone') return timeZoneChoices(current);
  if (doctype === 'User' && fieldname === 'language') return languageChoices(current);
  return undefined;
}
