import { PermissionError } from '../errors/index.js';

/**
 * The catalogue error for a write the database refused because it ran inside a read unit (a
 * read-only transaction, see docs/architecture.md "Units of work"): a GET request, or a GET call of
 * a method, tried to change data. 403, telling the client to use POST.
 */
export function readOnlyRefusal(cause: unknown): PermissionError {
  return new PermissionError('This request is read-only and cannot change data; use POST', {
    details: { readOnlyRequest: true },
    messages: [{ message: 'This call changes data, so it must be made with POST (GET requests are read-only)', title: 'Not permitted' }],
    cause,
  });
}
