import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { MaxFileSizeReachedError } from '../errors/index.js';
import { LocalFileStore } from './local-file-store.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const body = (s: string) => Readable.from([Buffer.from(s)]);

/** A body that yields `chunks` and then fails, as an aborted upload does. */
function failingBody(chunks: string[]): Readable {
  return Readable.from(
    (async function* () {
      for (const c of chunks) yield Buffer.from(c);
      throw new Error('connection reset');
    })(),
  );
}

describe('LocalFileStore', () => {
  let root: string;
  let store: LocalFileStore;
  let folders: { publicFiles: string; privateFiles: string };
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'fw-store-'));
    folders = { publicFiles: join(root, 'public', 'files'), privateFiles: join(root, 'private', 'files') };
    store = new LocalFileStore(folders);
  });
  after(() => rm(root, { recursive: true, force: true }));

  const allFiles = async () => [...(await readdir(folders.publicFiles).catch(() => [])), ...(await readdir(folders.privateFiles).catch(() => []))];

  test('put writes the bytes under the key and answers size and sha256', async () => {
    const written = await store.put('files/a.txt', body('hello'));
    assert.deepEqual(written, { size: 5, contentHash: sha256('hello') });
    assert.equal(await readFile(join(folders.publicFiles, 'a.txt'), 'utf8'), 'hello');
  });

  test('put of a private key writes into the private folder', async () => {
    await store.put('private/files/p.txt', body('secret'));
    assert.equal(await readFile(join(folders.privateFiles, 'p.txt'), 'utf8'), 'secret');
  });

  test('put past maxBytes throws MaxFileSizeReachedError and leaves no file', async () => {
    const before = await allFiles();
    await assert.rejects(store.put('files/big.txt', body('0123456789'), { maxBytes: 4 }), MaxFileSizeReachedError);
    assert.deepEqual(await allFiles(), before);
  });

  test('a body that fails midway leaves no file, temporary or final', async () => {
    const before = await allFiles();
    await assert.rejects(store.put('files/broken.txt', failingBody(['abc', 'def'])), /connection reset/);
    await assert.rejects(store.stage(failingBody(['abc'])), /connection reset/);
    assert.deepEqual(await allFiles(), before);
  });

  test('a staged object is reachable under no key until committed, and discard removes only the staged copy', async () => {
    const staged = await store.stage(body('staged bytes'));
    assert.equal(staged.contentHash, sha256('staged bytes'));
    assert.equal(await store.stat('files/staged.txt'), undefined);
    assert.equal(await store.commit(staged, 'files/staged.txt'), true);
    await store.discard(staged);
    assert.equal(await readFile(join(folders.publicFiles, 'staged.txt'), 'utf8'), 'staged bytes');
    assert.ok(!(await allFiles()).some((f) => f.startsWith('.')), 'no temporary file left');
  });

  test('commit never replaces an existing object', async () => {
    await store.put('files/taken.txt', body('first'));
    const staged = await store.stage(body('second'));
    assert.equal(await store.commit(staged, 'files/taken.txt'), false);
    await store.discard(staged);
    assert.equal(await readFile(join(folders.publicFiles, 'taken.txt'), 'utf8'), 'first');
  });

  test('one staged object can be committed under two keys', async () => {
    const staged = await store.stage(body('twice'));
    assert.equal(await store.commit(staged, 'files/one.txt'), true);
    assert.equal(await store.commit(staged, 'private/files/two.txt'), true);
    await store.discard(staged);
    assert.equal(await readFile(join(folders.privateFiles, 'two.txt'), 'utf8'), 'twice');
  });

  test('open streams the whole object or one range, with size and modification time', async () => {
    await store.put('files/digits.txt', body('0123456789'));
    const whole = await store.open('files/digits.txt');
    assert.ok(whole);
    assert.equal(await text(whole.stream), '0123456789');
    assert.equal(whole.size, 10);
    assert.ok(whole.modified instanceof Date);
    const part = await store.open('files/digits.txt', { start: 2, end: 4 });
    assert.ok(part);
    assert.equal(await text(part.stream), '234');
    assert.equal(part.size, 10);
  });

  test('open, stat and remove of a missing object answer undefined or do nothing', async () => {
    assert.equal(await store.open('files/missing.txt'), undefined);
    assert.equal(await store.stat('files/missing.txt'), undefined);
    await store.remove('files/missing.txt');
  });

  test('keys that could leave the folders or reach temporary files name nothing', async () => {
    await writeFile(join(root, 'site_config.json'), '{}');
    for (const key of ['files/../../site_config.json', 'files/..', 'private/files/.upload-x.part', 'other/x', 'files/a/b']) {
      assert.equal(await store.open(key), undefined, key);
      assert.equal(await store.stat(key), undefined, key);
      await assert.rejects(store.put(key, body('x')), /not a file key/, key);
    }
  });

  test('remove deletes the object', async () => {
    await store.put('files/gone.txt', body('x'));
    await store.remove('files/gone.txt');
    assert.equal(await store.stat('files/gone.txt'), undefined);
  });
});
