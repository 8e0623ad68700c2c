import { NameError } from '../../errors/index.js';
import type { Meta } from '../../meta/meta.js';

/** The width of every `name` column. */
export const MAX_NAME_LENGTH = 140;

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Checks a document name as the reference's `validate_name` does (§9) and returns it trimmed.
 * Every refusal is a 409 NameError. Slashes, spaces, `%` and any Unicode are allowed: the HTTP
 * layer percent-decodes names, so they round-trip through URLs.
 */
export function validateName(meta: Pick<Meta, 'name' | 'isSingle'>, name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') {
    throw new NameError(`No Name Specified for ${meta.name}`, { doctype: meta.name });
  }
  if (trimmed.startsWith(`New ${meta.name}`)) {
    // Desk's placeholder for an unsaved document: storing it means naming went wrong.
    throw new NameError('There were some errors setting the name, please contact the administrator', {
      doctype: meta.name,
    });
  }
  // The DocType named "DocType" is itself a document of DocType "DocType".
  if (!meta.isSingle && trimmed === meta.name && trimmed !== 'DocType') {
    throw new NameError(`Name of ${meta.name} cannot be ${trimmed}`, { doctype: meta.name });
  }
  if (/[<>]/.test(trimmed)) {
    throw new NameError("Name cannot contain special characters like '<', '>'", { doctype: meta.name });
  }
  // Control characters make names that cannot be typed, logged or put in a URL faithfully, and
  // PostgreSQL cannot store NUL at all: refused alike on both engines.
  if (CONTROL_CHARACTERS.test(trimmed)) {
    throw new NameError('Name cannot contain control characters (tabs, line breaks, NUL)', { doctype: meta.name });
  }
  // Counted in code points, as a varchar(140) column counts characters.
  if ([...trimmed].length > MAX_NAME_LENGTH) {
    throw new NameError(`Name is too long: at most ${MAX_NAME_LENGTH} characters are allowed`, {
      doctype: meta.name,
    });
  }
  return trimmed;
}
