import { Readable } from 'node:stream';
import { omitNulls } from '../../documents/omit-nulls.js';
import { ValidationError } from '../../errors/index.js';
import { createFileDocument, type FileServices } from '../../files/create-file-document.js';
import { UploadedFile } from '../../files/uploaded-file.js';
import type { MethodCall, MethodOptions, MethodRegistry, MethodServices } from '../method-registry.js';

/** What storing a File takes of the method services: the write runner, documents, the file store. */
const fileServices = (services: MethodServices): FileServices => ({ units: services, documents: services.documents, files: services.files });

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * `upload_file` (docs/files.md): the multipart part `file` (staged by the HTTP layer before the
 * call), or `file_url` to register an existing or remote file; `is_private`, `folder`, and
 * `doctype` + `docname` (+ `fieldname`) to attach it. Answers the File document.
 */
async function uploadFile({ ctx, args, services }: MethodCall): Promise<unknown> {
  const stored = await createFileDocument(fileServices(services), ctx, {
    upload: args.file instanceof UploadedFile ? args.file : undefined,
    fileUrl: text(args.file_url),
    fileName: text(args.file_name),
    isPrivate: args.is_private === true,
    folder: text(args.folder) ?? 'Home',
    attachedToDoctype: text(args.doctype),
    attachedToName: text(args.docname),
    attachedToField: text(args.fieldname),
  });
  return omitNulls(stored);
}

/** The bytes of attach_file's `filedata`: base64 (a `data:` URL prefix allowed) or the text itself. */
function decodeFiledata(data: string, base64: boolean): Buffer {
  if (!base64) return Buffer.from(data, 'utf8');
  const payload = data.includes(',') ? data.slice(data.indexOf(',') + 1) : data;
  const compact = payload.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new ValidationError('filedata is not valid base64');
  }
  return Buffer.from(compact, 'base64');
}

/**
 * `fw.client.attach_file`: a File from `filedata` attached to `doctype`/`docname`; with
 * `docfield`, that field of the document is set to the new file_url (as the reference does).
 */
async function attachFile({ ctx, args, services }: MethodCall): Promise<unknown> {
  const store = services.files;
  const bytes = decodeFiledata(String(args.filedata), args.decode_base64 === true);
  const upload = await UploadedFile.receive(store, Readable.from([bytes]), String(args.filename), {
    maxBytes: (await services.settings()).max_file_size,
  });
  let failed = true;
  try {
    const stored = await createFileDocument(fileServices(services), ctx, {
      upload,
      isPrivate: args.is_private === true,
      folder: text(args.folder),
      attachedToDoctype: String(args.doctype),
      attachedToName: String(args.docname),
      attachedToField: text(args.docfield),
      setAttachedField: true,
    });
    failed = false;
    return omitNulls(stored);
  } finally {
    await upload.release(failed);
  }
}

/** File methods: `upload_file` (POST only) and `fw.client.attach_file` (POST, PUT). */
export function registerFileMethods(methods: MethodRegistry): void {
  const uploadOptions: MethodOptions = {
    description: 'Uploads a file (multipart part `file`), or registers `file_url`, optionally attached to a document (docs/files.md).',
    methods: ['POST'],
    // Bytes are placed and the File stored in a transaction of its own, so a failure anywhere,
    // commit included, can take the bytes back.
    ownTransactions: true,
    params: [
      { name: 'is_private', type: 'bool' },
      { name: 'folder', type: 'string' },
      { name: 'doctype', type: 'string' },
      { name: 'docname', type: 'string' },
      { name: 'fieldname', type: 'string' },
      { name: 'file_url', type: 'string' },
      { name: 'file_name', type: 'string' },
    ],
  };
  methods.register('upload_file', uploadFile, uploadOptions);
  methods.register('fw.handler.upload_file', uploadFile, uploadOptions);
  methods.register('fw.client.attach_file', attachFile, {
    description: 'Stores a file sent as text (base64 with `decode_base64`) and attaches it to a document (docs/files.md).',
    methods: ['POST', 'PUT'],
    ownTransactions: true,
    params: [
      { name: 'filename', type: 'string', required: true },
      { name: 'filedata', type: 'string', required: true },
      { name: 'doctype', type: 'string', required: true },
      { name: 'docname', type: 'string', required: true },
      { name: 'folder', type: 'string' },
      { name: 'is_private', type: 'bool' },
      { name: 'docfield', type: 'string' },
      { name: 'decode_base64', type: 'bool' },
    ],
  });
}
