/**
 * The checks a Data field's `options` select (Email, Phone, URL, Name, IBAN), also used by the
 * Phone field type. Each throws the reference's 417 class for its kind of bad value.
 */
import { InvalidEmailAddressError, InvalidPhoneNumberError, InvalidURLError, ValidationError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import { fieldLabel } from './coerce-helpers.js';

// The reference's address pattern: dotted local part, and a domain with at least one dot.
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;
// `Display Name <address>` is accepted; the address inside the brackets is what is checked.
const NAMED_ADDRESS = /^[^<>]*<([^<>]+)>$/;

/** Throws InvalidEmailAddressError unless every comma-, semicolon- or newline-separated part is an address. */
export function validateEmailList(text: string, field: DocField): void {
  const parts = text
    .split(/[,;\n]/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const part of parts) {
    const address = NAMED_ADDRESS.exec(part)?.[1]?.trim() ?? part;
    if (!EMAIL.test(address)) {
      throw new InvalidEmailAddressError(`${fieldLabel(field)}: ${part} is not a valid Email Address`);
    }
  }
}

const PHONE_CHARS = /^[\d\s+\-().]+$/;

/** Throws InvalidPhoneNumberError unless `text` is digits and phone punctuation with 3 to 20 digits. */
export function validatePhone(text: string, field: DocField): void {
  const digits = text.replace(/\D/g, '').length;
  if (!PHONE_CHARS.test(text) || digits < 3 || digits > 20) {
    throw new InvalidPhoneNumberError(`${fieldLabel(field)}: ${text} is not a valid Phone Number`);
  }
}

const URL_SCHEMES = new Set(['http:', 'https:', 'ftp:']);

/** Throws InvalidURLError unless `text` is an absolute http, https or ftp URL with a host. */
export function validateUrl(text: string, field: DocField): void {
  let ok = false;
  try {
    const url = new URL(text.trim());
    ok = URL_SCHEMES.has(url.protocol) && url.hostname !== '';
  } catch {
    ok = false;
  }
  if (!ok) throw new InvalidURLError(`${fieldLabel(field)}: ${text} is not a valid URL`);
}

// A leading `scheme:` once the whitespace and control characters browsers skip are removed.
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const FILE_URL_SCHEMES = new Set(['http', 'https']);

/**
 * Throws InvalidURLError when an Attach value names a scheme other than http or https: a
 * `javascript:` or `data:` link would run or render whatever it holds when a client opens the
 * attachment. Relative file paths (`/files/a.pdf`, `/private/files/b.png`) have no scheme.
 */
export function validateAttachUrl(text: string, field: DocField): void {
  const scheme = SCHEME.exec(text.replace(/[\u0000-\u0020\u007f]/g, ''))?.[1]?.toLowerCase();
  if (scheme !== undefined && !FILE_URL_SCHEMES.has(scheme)) {
    throw new InvalidURLError(`${fieldLabel(field)}: ${text} is not a file URL (only http, https or a site path)`);
  }
}

// Characters that have no place in a person's or thing's name and would be markup or escapes.
const NAME_FORBIDDEN = /[<>"\\{}[\];=`\u0000-\u001f\u007f]/;

/** Throws ValidationError when a name holds markup or escape characters. */
export function validatePersonName(text: string, field: DocField): void {
  if (NAME_FORBIDDEN.test(text)) {
    throw new ValidationError(`${fieldLabel(field)}: ${text} is not a valid Name`);
  }
}

/** Throws ValidationError unless `text` (spaces allowed) is an IBAN with a correct check sum. */
export function validateIban(text: string, field: DocField): void {
  const iban = text.replace(/\s+/g, '').toUpperCase();
  let ok = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban);
  if (ok) {
    const digits = (iban.slice(4) + iban.slice(0, 4)).replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
    let remainder = 0;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
    ok = remainder === 1;
  }
  if (!ok) throw new ValidationError(`${fieldLabel(field)}: ${text} is not a valid IBAN`);
}

const CHECKS: ReadonlyMap<string, (text: string, field: DocField) => void> = new Map([
  ['Email', validateEmailList],
  ['Phone', validatePhone],
  ['URL', validateUrl],
  ['Name', validatePersonName],
  ['IBAN', validateIban],
]);

/** Applies the check a Data field's `options` names; other options (Barcode, none) check nothing. */
export function validateDataOption(text: string, field: DocField): void {
  const check = CHECKS.get((field.options ?? '').trim());
  if (check) check(text, field);
}
