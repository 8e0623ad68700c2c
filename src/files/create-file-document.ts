import type { Principal } from '../auth/principal.js';
import type { DocumentService } from '../documents/document-service.js';
import type { UnitRunner } from '../documents/unit-runner.js';
import type { Doc } from '../meta/doctype.js';
import type { FileStore } from './file-store.js';
import { FILE_DOCTYPE } from './file-rows.js';
import { placeUpload } from './place-upload.js';
import type { UploadedFile } from './uploaded-file.js';

/** What a new File is made of: uploaded bytes or an existing URL, and where it belongs. */
export interface NewFile {
  readonly upload?: UploadedFile;
  readonly fileUrl?: string;
  readonly fileName?: string;
  readonly isPrivate: boolean;
  readonly folder?: string;
  readonly attachedToDoctype?: string;
  readonly attachedToName?: string;
  readonly attachedToField?: string;
  /** Also store the file_url in the attached document's `attachedToField` (attach_file does). */
  readonly setAttachedField?: boolean;
}

/** What storing a File needs of the site: its transaction runner, documents and file store. */
export interface FileServices {
  readonly units: Pick<UnitRunner, 'write'>;
  readonly documents: DocumentService;
  readonly files: FileStore;
}

/** Who asks, and the session they came with. */
export interface Requester {
  readonly principal: Principal;
  readonly sid?: string;
}

/**
 * Stores a new File in its own transaction: uploaded bytes are placed (deduplicated, renamed on a
 * clash) and the File document inserted, through the File controller's checks. Runs outside the
 * caller's transaction so that, whatever fails, commit included, the bytes this call placed are
 * removed again (an after-rollback callback) and nothing is left behind.
 */
export async function createFileDocument(services: FileServices, who: Requester, file: NewFile): Promise<Doc> {
  const { units, documents, files: store } = services;
  return units.write(
    who.principal,
    async (ctx) => {
      const data: Doc = {
        is_private: file.isPrivate ? 1 : 0,
        folder: file.folder ?? null,
        file_name: file.fileName ?? null,
        file_url: file.fileUrl ?? null,
        attached_to_doctype: file.attachedToDoctype ?? null,
        attached_to_name: file.attachedToName ?? null,
        attached_to_field: file.attachedToField ?? null,
      };
      if (file.upload) {
        // Whatever fails from here on, commit included, the bytes this call placed go again.
        const upload = file.upload;
        ctx.unit.afterRollback(() => upload.undoPlacement());
        const placed = await placeUpload(ctx, store, file.upload, {
          isPrivate: file.isPrivate,
          fileName: file.upload.filename || file.fileName || '',
        });
        data.file_url = placed.file.url;
        data.file_name = placed.fileName;
      }
      const stored = await documents.insert(ctx, FILE_DOCTYPE, data);
      if (file.setAttachedField && file.attachedToDoctype && file.attachedToName && file.attachedToField) {
        await documents.update(ctx, file.attachedToDoctype, file.attachedToName, { [file.attachedToField]: stored.file_url });
      }
      return stored;
    },
    // An upload is a request's write: maintenance applies (docs/configuration.md "Maintenance").
    { sid: who.sid, request: true },
  );
}
