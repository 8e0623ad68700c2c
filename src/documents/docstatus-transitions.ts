import { DocstatusTransitionError, ValidationError } from '../errors/index.js';
import type { PermissionType } from '../meta/doctype.js';

/** 0 Draft, 1 Submitted, 2 Cancelled. */
export type DocStatus = 0 | 1 | 2;

/** What a write does to a document, decided by its stored and requested docstatus (docs/architecture.md "The document pipeline"). */
export type DocAction = 'save' | 'submit' | 'update_after_submit' | 'cancel';

const LABELS: Readonly<Record<DocStatus, string>> = { 0: '0 (Draft)', 1: '1 (Submitted)', 2: '2 (Cancelled)' };

/**
 * The right an action needs besides `create` (insert) or `write` (save); a plain save needs none.
 * Writing on a submitted document needs `submit`, as in the reference.
 */
export const ACTION_RIGHT: Readonly<Record<DocAction, PermissionType | undefined>> = {
  save: undefined,
  submit: 'submit',
  update_after_submit: 'submit',
  cancel: 'cancel',
};

/**
 * A docstatus sent by a client: 0, 1 or 2, as a number or numeric text (form bodies carry text).
 * Anything else is a 417.
 */
export function parseDocstatus(value: unknown): DocStatus {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (n === 0 || n === 1 || n === 2) return n;
  throw new ValidationError(`Invalid docstatus ${JSON.stringify(value)}: it must be 0 (Draft), 1 (Submitted) or 2 (Cancelled)`);
}

function refuseTransition(from: DocStatus, to: DocStatus): never {
  throw new DocstatusTransitionError(`Cannot change docstatus from ${LABELS[from]} to ${LABELS[to]}`);
}

function refuseNotSubmittable(doctype: string): never {
  throw new ValidationError(`${doctype} is not submittable: its documents can only be saved as drafts (docstatus 0)`, { doctype });
}

/**
 * The action of a write from docstatus `from` (undefined for a new document) to `to`, or the
 * reference's error for an illegal transition: a cancelled document cannot be edited, a submitted
 * one cannot go back to draft, a draft cannot be cancelled, and only submittable DocTypes leave 0.
 */
export function docstatusAction(from: DocStatus | undefined, to: DocStatus, submittable: boolean, doctype: string): DocAction {
  if (from === 2) throw new ValidationError('Cannot edit cancelled document', { doctype });
  const start = from ?? 0;
  if (!submittable && (to !== 0 || start !== 0)) refuseNotSubmittable(doctype);
  if (start === 0) {
    if (to === 0) return 'save';
    if (to === 1) return 'submit';
    return refuseTransition(0, 2);
  }
  if (to === 1) return 'update_after_submit';
  if (to === 2) return 'cancel';
  return refuseTransition(1, 0);
}

/**
 * Checks that a document may be discarded (a draft set to cancelled without cancel logic): only
 * drafts of submittable DocTypes.
 */
export function checkDiscardable(from: DocStatus, submittable: boolean, doctype: string, name: string): void {
  if (!submittable) refuseNotSubmittable(doctype);
  if (from !== 0) {
    throw new ValidationError(`${doctype} ${name} is ${from === 1 ? 'submitted' : 'cancelled'}: only draft documents can be discarded`, {
      doctype,
    });
  }
}
