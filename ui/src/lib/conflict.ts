import type { Doc } from './api';

/** Keys that belong to the stored copy, never to the user's edits. */
const STAMPS = new Set(['modified', 'modified_by', 'creation', 'owner', 'docstatus', 'name', 'doctype', 'idx']);

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The fields the user changed since the form was loaded: `mine` against the copy it started from. */
export function editedFields(mine: Doc, base: Doc): string[] {
  return Object.keys(mine).filter((k) => !STAMPS.has(k) && !k.startsWith('__') && !same(mine[k], base[k]));
}

/**
 * "Keep mine" after someone else saved (docs/admin-ui.md "Forms"): their copy, with the user's own
 * edits on top, so the next save carries their `modified` and overwrites only what the user changed.
 */
export function keepMine(mine: Doc, base: Doc, theirs: Doc): Doc {
  const merged: Doc = { ...theirs };
  for (const k of editedFields(mine, base)) merged[k] = mine[k];
  return merged;
}

/** Fields whose values differ between their copy and the user's: what "See theirs" lists. */
export function differences(mine: Doc, theirs: Doc): string[] {
  const keys = new Set([...Object.keys(mine), ...Object.keys(theirs)]);
  return [...keys].filter((k) => !STAMPS.has(k) && !k.startsWith('__') && !k.startsWith('_') && !same(mine[k], theirs[k]));
}
