import { createDocType } from './document-api.js';
import type { TestSite } from './test-site.js';

/** Hash-named, one field of each kind the lifecycle tests need. */
export const ARTICLE = 'Article';
/** Three required fields of different types, and one optional. */
export const REQUIRED = 'Required Thing';
/** Named after its `code` field. */
export const KEYED = 'Keyed Thing';
/** Named by the client (`prompt`). */
export const NAMED = 'Named Thing';

/** Creates the DocTypes above on a fresh test site. */
export async function createDocumentFixtures(t: TestSite): Promise<void> {
  await createDocType(t, {
    name: ARTICLE,
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
      { fieldname: 'code', label: 'Code', fieldtype: 'Data', unique: 1 },
      { fieldname: 'body', label: 'Body', fieldtype: 'Text Editor' },
      { fieldname: 'pages', label: 'Pages', fieldtype: 'Int' },
      { fieldname: 'published', label: 'Published', fieldtype: 'Date' },
      { fieldname: 'reviewer', label: 'Reviewer', fieldtype: 'Link', options: 'User' },
      { fieldname: 'secret', label: 'Secret', fieldtype: 'Password' },
      { fieldname: 'note', label: 'Note', fieldtype: 'Small Text' },
    ],
  });
  await createDocType(t, {
    name: REQUIRED,
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
      { fieldname: 'body', label: 'Body', fieldtype: 'Text Editor', reqd: 1 },
      { fieldname: 'due', label: 'Due Date', fieldtype: 'Date', reqd: 1 },
      { fieldname: 'note', label: 'Note', fieldtype: 'Data' },
    ],
  });
  await createDocType(t, {
    name: KEYED,
    autoname: 'field:code',
    fields: [
      { fieldname: 'code', label: 'Code', fieldtype: 'Data' },
      { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
    ],
  });
  await createDocType(t, {
    name: NAMED,
    autoname: 'prompt',
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
      { fieldname: 'pages', label: 'Pages', fieldtype: 'Int' },
    ],
  });
}
