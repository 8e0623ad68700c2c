import { PermissionError } from '../errors/index.js';
import type { PermissionType } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { Actor } from './role-permissions.js';

/**
 * The 403 for a refused action, worded as the reference words it: about the DocType when no document
 * is involved, about the document (`You need the 'write' permission on ToDo abc...`) otherwise.
 */
export function permissionDenied(actor: Actor, meta: Meta, right: PermissionType, name?: unknown): PermissionError {
  const hasName = typeof name === 'string' && name !== '';
  const target = hasName ? `${meta.name} ${name}` : meta.name;
  const message = hasName
    ? `You need the '${right}' permission on ${target} to perform this action.`
    : `User ${actor.user} does not have doctype access via role permission for document ${meta.name}`;
  return new PermissionError(`No permission to ${right} ${target}`, {
    doctype: meta.name,
    messages: [{ message, title: 'Not permitted' }],
  });
}
