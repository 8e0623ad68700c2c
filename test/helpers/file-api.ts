import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from '../../src/files/s3-file-store.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Site } from '../../src/site/site.js';
import { multipartForm, uploadForm, type FormPart } from './multipart-form.js';
import type { TestSite } from './test-site.js';

/** A signed-in user of the file suites: their name and the headers that carry their session. */
export interface SignedInUser {
  readonly name: string;
  readonly headers: Record<string, string>;
}

/** Who sends a request: the Administrator (token), a signed-in user, or Guest. */
export type Sender = 'admin' | 'guest' | SignedInUser;

const PASSWORD = 'File-Test-Secret-42';

/** Creates a user through `POST /api/resource/User` and logs them in through `/api/method/login`. */
export async function signUp(t: TestSite, email: string, roles: string[] = []): Promise<SignedInUser> {
  const created = await t.request({
    method: 'POST',
    url: '/api/resource/User',
    body: { email, first_name: email.split('@')[0], new_password: PASSWORD, roles: roles.map((role) => ({ role })) },
  });
  assert.equal(created.statusCode, 200, created.body);
  const login = await t.app.inject({ method: 'POST', url: '/api/method/login', payload: { usr: email, pwd: PASSWORD } });
  assert.equal(login.statusCode, 200, login.body);
  const sid = login.cookies.find((c) => c.name === 'sid')?.value;
  assert.ok(sid, 'login set a sid cookie');
  return { name: String(created.json().data.name), headers: { cookie: `sid=${sid}` } };
}

/** The headers that make a request come from `sender`. */
export function senderHeaders(t: TestSite, sender: Sender): Record<string, string> {
  if (sender === 'admin') return { authorization: t.adminAuth };
  if (sender === 'guest') return {};
  return sender.headers;
}

/** Sends a multipart form to upload_file (or another URL) as `sender`. */
export function postForm(
  app: FastifyInstance | TestSite,
  form: { payload: Buffer; headers: Record<string, string> },
  headers: Record<string, string>,
  url = '/api/method/upload_file',
): Promise<LightMyRequestResponse> {
  const target = 'app' in app ? app.app : app;
  return target.inject({ method: 'POST', url, headers: { ...form.headers, ...headers }, payload: form.payload });
}

/** Uploads `content` as `filename` with extra form fields; answers the raw response. */
export function uploadFile(
  t: TestSite,
  filename: string,
  content: string | Buffer,
  fields: Record<string, string> = {},
  sender: Sender = 'admin',
): Promise<LightMyRequestResponse> {
  return postForm(t, uploadForm(filename, content, fields), senderHeaders(t, sender));
}

/** Sends form parts (no file part unless given) to upload_file. */
export function postParts(t: TestSite, parts: FormPart[], sender: Sender = 'admin'): Promise<LightMyRequestResponse> {
  return postForm(t, multipartForm(parts), senderHeaders(t, sender));
}

/** The File document an upload answered, failing unless it answered 200. */
export function fileOf(res: LightMyRequestResponse): Record<string, any> {
  assert.equal(res.statusCode, 200, res.body);
  return res.json().message as Record<string, any>;
}

/** sha256 hex of a string or buffer, as content_hash holds it. */
export function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Every entry of the site's file store, temporary files included, as `public/x` / `private/x`: the
 * public and private folders on disk, or, for a site whose files are in a bucket, the objects under
 * its prefix (staged uploads as `staging/<id>`).
 */
export async function filesOnDisk(site: Site): Promise<string[]> {
  const storage = site.config.file_storage;
  if (storage.backend === 's3') {
    const client = s3Client(storage);
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: storage.bucket, Prefix: `${storage.prefix}/` }));
      return (listed.Contents ?? [])
        .map((o) =>
          String(o.Key)
            .slice(storage.prefix.length + 1)
            .replace(/^(public|private)\/files\//, '$1/'),
        )
        .sort();
    } finally {
      client.destroy();
    }
  }
  const list = async (dir: string, label: string) => (await readdir(dir).catch(() => [] as string[])).map((f) => `${label}/${f}`);
  return [...(await list(site.paths.publicFiles, 'public')), ...(await list(site.paths.privateFiles, 'private'))].sort();
}

/** The bytes stored under `key` (`files/x`, `private/files/x`) in the site's store, whichever backend holds it. */
export async function storedBytes(site: Site, key: string): Promise<Buffer> {
  const opened = await site.files.open(key);
  assert.ok(opened, `${key} is stored`);
  return buffer(opened.stream);
}

/** storedBytes as UTF-8 text. */
export async function storedText(site: Site, key: string): Promise<string> {
  return (await storedBytes(site, key)).toString('utf8');
}

/** How many File rows the database holds, read directly. */
export async function fileRowCount(site: Site): Promise<number> {
  const b = site.db.dialect.builder;
  const rows = await site.db.read((q) => q.all<{ n: unknown }>(b.selectFrom('tabFile').select(b.fn.countAll().as('n')).compile()));
  return Number(rows[0]?.n);
}
