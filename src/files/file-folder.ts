import type { DocContext } from '../documents/doc-context.js';
import { LinkValidationError, ValidationError } from '../errors/index.js';
import { FILE_DOCTYPE } from './file-rows.js';

/** The folders every site has (docs/files.md): uploads go to `Home`, attachments to `Home/Attachments`. */
export const BUILT_IN_FOLDERS: readonly string[] = ['Home', 'Home/Attachments'];

/** The longest folder path the File DocType's `folder` column holds. */
const MAX_FOLDER_LENGTH = 255;
/** Characters no folder segment may hold: path separators of other systems, control characters. */
const BAD_SEGMENT = /[\\\u0000-\u001f\u007f]/;

/** Checks the name of a folder File: one segment of a folder path. */
export function checkFolderName(name: string): void {
  if (name.includes('/') || name === '.' || name === '..' || name !== name.trim() || BAD_SEGMENT.test(name)) {
    throw new ValidationError(`A folder name cannot hold "/" or control characters, or be "." or ".."`);
  }
}

/**
 * Checks the `folder` of a File: a path of `/`-separated segments under `Home`, no segment empty,
 * `.` or `..` or holding a backslash or control character (417 ValidationError), that names a
 * built-in folder or a folder File (`is_folder` = 1) whose `folder` and `file_name` spell it
 * (417 LinkValidationError otherwise, as the reference's Link to the folder File would be).
 */
export async function checkFolder(ctx: DocContext, folder: string): Promise<void> {
  const shown = JSON.stringify(folder.slice(0, 100));
  const segments = folder.split('/');
  if (
    folder.length > MAX_FOLDER_LENGTH ||
    segments[0] !== 'Home' ||
    segments.some((s) => s.trim() === '' || s === '.' || s === '..' || s !== s.trim() || BAD_SEGMENT.test(s))
  ) {
    throw new ValidationError(`Folder ${shown} is not a valid folder path (such as "Home" or "Home/Attachments")`);
  }
  if (BUILT_IN_FOLDERS.includes(folder)) return;
  const parent = segments.slice(0, -1).join('/');
  const name = segments[segments.length - 1];
  const meta = ctx.metas.get(FILE_DOCTYPE);
  const query = ctx.dialect.builder
    .selectFrom(meta.tableName)
    .select('name')
    .where('is_folder', '=', 1)
    .where('folder', '=', parent)
    .where('file_name', '=', name)
    .limit(1);
  const rows = await ctx.q.all(query.compile());
  if (rows.length === 0) throw new LinkValidationError(`Folder ${shown} does not exist`);
}
