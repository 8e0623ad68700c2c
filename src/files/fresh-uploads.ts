import type { DocContext } from '../documents/doc-context.js';
import type { WrittenObject } from './file-store.js';

/*
 * Which stored files the current unit of work has just received bytes for. The File controller
 * lets a new File point at a stored file only when its principal may read that file already, or
 * when the bytes arrived in this very unit of work (an upload): this registry tells the two apart.
 * Keyed by the unit's context, so nothing outlives the unit or crosses to another request.
 */
const fresh = new WeakMap<DocContext, Map<string, WrittenObject>>();

/** Records that `url` holds bytes uploaded in this unit of work. */
export function markFreshUpload(ctx: DocContext, url: string, written: WrittenObject): void {
  let urls = fresh.get(ctx);
  if (!urls) {
    urls = new Map();
    fresh.set(ctx, urls);
  }
  urls.set(url, { size: written.size, contentHash: written.contentHash });
}

/** Size and hash of the bytes uploaded to `url` in this unit of work, or undefined. */
export function freshUpload(ctx: DocContext, url: string): WrittenObject | undefined {
  return fresh.get(ctx)?.get(url);
}
