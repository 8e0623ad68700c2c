import type { PermissionType } from '../meta/doctype.js';

/** One DocShare row as the checks read it: which rights it gives on which document. */
export interface ShareGrant {
  readonly name: string;
  readonly read: boolean;
  readonly write: boolean;
  readonly share: boolean;
  readonly submit: boolean;
}

/**
 * True when the share gives `right` (docs/architecture.md "Permissions"): read, write, share and submit as stored;
 * `select`, `email` and `print` follow read; nothing else (create, delete...) is ever shared.
 */
export function shareAllows(share: ShareGrant, right: PermissionType): boolean {
  switch (right) {
    case 'read':
    case 'select':
    case 'email':
    case 'print':
      return share.read;
    case 'write':
      return share.write;
    case 'share':
      return share.share;
    case 'submit':
      return share.submit;
    default:
      return false;
  }
}

/** True when some share could ever give `right`, so looking shares up is worth a query. */
export function isShareable(right: PermissionType): boolean {
  return shareAllows({ name: '', read: true, write: true, share: true, submit: true }, right);
}

/** The names of the shared documents that `right` reaches. */
export function sharedNames(shares: readonly ShareGrant[], right: PermissionType): string[] {
  return [...new Set(shares.filter((s) => shareAllows(s, right)).map((s) => s.name))];
}
