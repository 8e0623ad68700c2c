import { presentationFor } from './content-types.js';
import type { FileStore } from './file-store.js';
import type { FileStorageConfig } from './file-storage-config.js';
import type { LocalFile } from './file-url.js';

/** Seconds a presigned URL lives, or undefined when fw streams the file itself. */
export type RedirectTtl = number | undefined;

/**
 * Whether files of one privacy are handed out as redirects to presigned bucket URLs
 * (docs/files.md "Delivery"): only on an object store whose `file_storage` asks for it.
 */
export function redirectTtl(storage: FileStorageConfig, store: FileStore, isPrivate: boolean): RedirectTtl {
  if (storage.backend !== 's3' || !store.directUrl) return undefined;
  const delivery = isPrivate ? storage.private_delivery : storage.public_delivery;
  return delivery === 'redirect' ? storage.presign_ttl_s : undefined;
}

/** RFC 6266 with RFC 8187's UTF-8 form, so any stored name survives. */
function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * A presigned URL for `file`, made only after the caller's permission check passed. The bucket
 * answers with the type and disposition fw would send (only the inline allow-list of
 * docs/files.md "Serving" in place, everything else as an attachment), since the bucket cannot send
 * fw's sandboxing Content-Security-Policy.
 */
export async function presignedLocation(store: FileStore, file: LocalFile, ttlSeconds: number): Promise<string | undefined> {
  if (!store.directUrl) return undefined;
  const { contentType, inline } = presentationFor(file.name);
  return store.directUrl(file.key, {
    expiresInSeconds: ttlSeconds,
    contentType,
    contentDisposition: disposition(inline ? 'inline' : 'attachment', file.name),
  });
}
