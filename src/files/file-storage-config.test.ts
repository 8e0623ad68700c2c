import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFileStorageConfig, PRESIGN_TTL_MAX_S } from './file-storage-config.js';

const fail = (message: string): never => {
  throw new Error(message);
};
const parse = (value: unknown) => parseFileStorageConfig(value, fail);
const S3 = { backend: 's3', bucket: 'fw-files', access_key_id: 'AK', secret_access_key: 'SK' };

test('absent or local file_storage is the local disk', () => {
  assert.deepEqual(parse(undefined), { backend: 'local' });
  assert.deepEqual(parse({ backend: 'local' }), { backend: 'local' });
});

test('bucket settings beside the local backend are kept for migration, not used for serving', () => {
  const parsed = parse({ ...S3, backend: 'local' });
  assert.equal(parsed.backend, 'local');
  assert.equal(parsed.backend === 'local' && parsed.s3?.bucket, 'fw-files');
});

test('an s3 file_storage gets defaults for what it leaves out', () => {
  assert.deepEqual(parse(S3), {
    backend: 's3',
    bucket: 'fw-files',
    prefix: '',
    region: 'us-east-1',
    endpoint: null,
    force_path_style: false,
    access_key_id: 'AK',
    secret_access_key: 'SK',
    public_delivery: 'proxy',
    private_delivery: 'proxy',
    presign_ttl_s: 60,
  });
  const full = parse({
    ...S3,
    prefix: 'sites/erp.example.com',
    endpoint: 'http://127.0.0.1:9000',
    force_path_style: true,
    private_delivery: 'redirect',
    presign_ttl_s: 120,
  });
  assert.equal(full.backend === 's3' && full.prefix, 'sites/erp.example.com');
  assert.equal(full.backend === 's3' && full.presign_ttl_s, 120);
});

for (const [label, value, message] of [
  ['not an object', 'S3', /"file_storage" must be an object/],
  ['an unknown backend', { backend: 'gcs' }, /"file_storage.backend" must be "local" or "s3"/],
  ['bad bucket settings beside the local backend', { backend: 'local', bucket: 'X' }, /"file_storage.bucket" must be a bucket name/],
  ['a misspelt key', { ...S3, bukket: 'x' }, /unknown keys: bukket/],
  ['no bucket', { backend: 's3' }, /"file_storage.bucket" must be a bucket name/],
  ['a bucket with capitals', { ...S3, bucket: 'My_Bucket' }, /bucket name/],
  ['a prefix with a leading slash', { ...S3, prefix: '/sites' }, /"file_storage.prefix"/],
  ['a prefix climbing out', { ...S3, prefix: 'a/../b' }, /"file_storage.prefix"/],
  ['an endpoint that is no URL', { ...S3, endpoint: 'minio:9000' }, /"file_storage.endpoint" must be an http\(s\):\/\/ URL/],
  ['a key without its secret', { backend: 's3', bucket: 'fw-files', access_key_id: 'AK' }, /go together/],
  ['an unknown delivery', { ...S3, private_delivery: 'public' }, /"file_storage.private_delivery" must be "proxy"/],
  ['a presigned URL living too long', { ...S3, presign_ttl_s: PRESIGN_TTL_MAX_S + 1 }, /from 1 to 300/],
  ['a zero lifetime', { ...S3, presign_ttl_s: 0 }, /presign_ttl_s/],
  ['force_path_style as a string', { ...S3, force_path_style: 'yes' }, /true or false/],
] as const) {
  test(`file_storage refuses ${label}`, () => {
    assert.throws(() => parse(value), message);
  });
}
