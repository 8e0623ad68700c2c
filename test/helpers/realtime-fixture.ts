import { createDocType, dataOf, resourceUrl, type Json } from './document-api.js';
import { createRole, createUser, type ActingUser } from './permission-users.js';
import type { TestSite } from './test-site.js';

/** The DocType and users the realtime suites act on. */
export interface NoteFixture {
  readonly doctype: string;
  /** Reads only her own notes (if_owner). */
  readonly alice: ActingUser;
  /** Reads every note. */
  readonly bob: ActingUser;
  /** Has no role on notes. */
  readonly carol: ActingUser;
  /** Inserts a note as `user` through the API. */
  insertAs(user: ActingUser, body: Json): Promise<Json>;
}

/** Creates `doctype` (one mandatory `title`) readable by owners only through one role and wholly through another, and three users. */
export async function noteFixture(t: TestSite, doctype: string, domain: string): Promise<NoteFixture> {
  const ownerOnly = `${doctype} Owner`;
  const readAll = `${doctype} Reader`;
  await createRole(t, ownerOnly);
  await createRole(t, readAll);
  await createDocType(t, {
    name: doctype,
    fields: [{ fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 }],
    permissions: [
      { role: ownerOnly, read: 1, write: 1, create: 1, delete: 1, if_owner: 1 },
      { role: readAll, read: 1, write: 1, create: 1, delete: 1 },
    ],
  });
  const alice = await createUser(t, `alice@${domain}`, { roles: [ownerOnly] });
  const bob = await createUser(t, `bob@${domain}`, { roles: [readAll] });
  const carol = await createUser(t, `carol@${domain}`);
  return {
    doctype,
    alice,
    bob,
    carol,
    insertAs: async (user, body) => dataOf(await t.request({ method: 'POST', url: resourceUrl(doctype), body, headers: { authorization: user.auth } })),
  };
}
