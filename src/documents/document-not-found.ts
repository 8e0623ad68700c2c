import { DoesNotExistError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';

/** The 404 for a document that does not exist. */
export function documentNotFound(meta: Meta, name: string): DoesNotExistError {
  return new DoesNotExistError(`${meta.name} ${name} not found`, { doctype: meta.name });
}
