import { TimestampMismatchError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';

/**
 * Optimistic concurrency (docs/architecture.md "The document pipeline" save step 2): a `modified` sent with a patch must equal the
 * stored one as a string, else 417 TimestampMismatchError. A patch without `modified` always passes.
 */
export function checkModified(meta: Meta, before: Doc, patch: Doc): void {
  const sent = patch.modified;
  if (sent === undefined || sent === null || String(sent) === before.modified) return;
  throw new TimestampMismatchError(
    `Error: ${String(before.name)} (${meta.name}) has been modified after you have opened it (${String(before.modified)}, ${String(sent)}). Please refresh to get the latest document.`,
    { doctype: meta.name },
  );
}

/** A `modified` strictly after the stored one, even when clocks of two processes disagree. */
export function laterThan(candidate: string, previous: string): string {
  if (candidate > previous) return candidate;
  const micros = Number(previous.slice(-6)) + 1;
  if (micros < 1_000_000) return `${previous.slice(0, -6)}${String(micros).padStart(6, '0')}`;
  return candidate;
}
