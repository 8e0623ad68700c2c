/** How a file is handed to a client that may read it: streamed by fw, or a redirect to a short-lived bucket URL. */
export type FileDelivery = 'proxy' | 'redirect';

/**
 * Bytes on the site's own disk (`public/files`, `private/files`). Bucket settings may sit beside
 * `backend: "local"`: unused for serving, they are where `fw files migrate --to s3` copies to.
 */
export interface LocalFileStorage {
  readonly backend: 'local';
  readonly s3?: S3FileStorage;
}

/** Bytes in an S3-compatible bucket (docs/files.md "Storage backends"). */
export interface S3FileStorage {
  readonly backend: 's3';
  readonly bucket: string;
  /** Put before every key, without slashes at either end; '' for the bucket's root. */
  readonly prefix: string;
  readonly region: string;
  /** The service's URL (MinIO, R2, ...); null: AWS's own endpoint for `region`. */
  readonly endpoint: string | null;
  readonly force_path_style: boolean;
  /** null: the SDK's default credential chain (environment, instance role). */
  readonly access_key_id: string | null;
  readonly secret_access_key: string | null;
  readonly public_delivery: FileDelivery;
  readonly private_delivery: FileDelivery;
  /** Lifetime of a presigned URL in seconds, at most PRESIGN_TTL_MAX_S. */
  readonly presign_ttl_s: number;
}

/** The `file_storage` key of site_config.json. */
export type FileStorageConfig = LocalFileStorage | S3FileStorage;

export const DEFAULT_FILE_STORAGE: FileStorageConfig = { backend: 'local' };

/** A presigned URL outlives fw's permission check: it must not live long (docs/security.md "Files"). */
export const PRESIGN_TTL_MAX_S = 300;
export const PRESIGN_TTL_DEFAULT_S = 60;

const S3_KEYS = new Set([
  'backend',
  'bucket',
  'prefix',
  'region',
  'endpoint',
  'force_path_style',
  'access_key_id',
  'secret_access_key',
  'public_delivery',
  'private_delivery',
  'presign_ttl_s',
]);

/** S3's bucket naming rule, loose enough for MinIO and R2 (dots and capitals are refused by all of them). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function optionalString(raw: Record<string, unknown>, key: string, fail: (msg: string) => never): string | null {
  const value = raw[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') fail(`"file_storage.${key}" must be a non-empty string`);
  return value;
}

function delivery(raw: Record<string, unknown>, key: string, fail: (msg: string) => never): FileDelivery {
  const value = raw[key];
  if (value === undefined) return 'proxy';
  if (value !== 'proxy' && value !== 'redirect') fail(`"file_storage.${key}" must be "proxy" (fw streams the file) or "redirect" (a presigned URL)`);
  return value;
}

/**
 * Reads `file_storage` from a parsed site_config.json. `fail` reports a problem the way the rest of
 * the config loader does; every message says which value to write instead.
 */
export function parseFileStorageConfig(value: unknown, fail: (msg: string) => never): FileStorageConfig {
  if (value === undefined || value === null) return DEFAULT_FILE_STORAGE;
  if (typeof value !== 'object' || Array.isArray(value))
    fail('"file_storage" must be an object like {"backend": "local"} or {"backend": "s3", "bucket": "..."}');
  const raw = value as Record<string, unknown>;
  if (raw.backend === undefined || raw.backend === 'local') {
    if (Object.keys(raw).every((key) => key === 'backend')) return DEFAULT_FILE_STORAGE;
    return { backend: 'local', s3: parseS3Settings(raw, fail) };
  }
  if (raw.backend !== 's3') fail('"file_storage.backend" must be "local" or "s3"');
  return parseS3Settings(raw, fail);
}

/** The bucket settings of `file_storage`, whichever backend serves. */
function parseS3Settings(raw: Record<string, unknown>, fail: (msg: string) => never): S3FileStorage {
  const unknown = Object.keys(raw).filter((key) => !S3_KEYS.has(key));
  if (unknown.length > 0) fail(`"file_storage" has unknown keys: ${unknown.join(', ')} (known: ${[...S3_KEYS].join(', ')})`);

  const bucket = raw.bucket;
  if (typeof bucket !== 'string' || !BUCKET.test(bucket)) fail('"file_storage.bucket" must be a bucket name (3-63 lower-case letters, digits, dots or dashes)');
  const prefix = raw.prefix ?? '';
  if (typeof prefix !== 'string' || (prefix !== '' && prefix.split('/').some((part) => part === '' || part === '.' || part === '..'))) {
    fail('"file_storage.prefix" must be a path like "sites/erp.example.com", without leading, trailing or double slashes');
  }
  const region = raw.region ?? 'us-east-1';
  if (typeof region !== 'string' || !/^[a-z0-9-]{1,64}$/.test(region)) fail('"file_storage.region" must be a region name like "eu-central-1" ("auto" for R2)');
  const endpoint = optionalString(raw, 'endpoint', fail);
  if (endpoint !== null && !/^https?:\/\/[^\s/]+/i.test(endpoint)) fail('"file_storage.endpoint" must be an http(s):// URL like "https://s3.example.com"');
  const forcePathStyle = raw.force_path_style ?? false;
  if (typeof forcePathStyle !== 'boolean') fail('"file_storage.force_path_style" must be true or false');
  const accessKeyId = optionalString(raw, 'access_key_id', fail);
  const secretAccessKey = optionalString(raw, 'secret_access_key', fail);
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    fail('"file_storage.access_key_id" and "file_storage.secret_access_key" go together: give both, or neither to use the environment\'s credentials');
  }
  const ttl = raw.presign_ttl_s ?? PRESIGN_TTL_DEFAULT_S;
  if (!Number.isInteger(ttl) || (ttl as number) < 1 || (ttl as number) > PRESIGN_TTL_MAX_S) {
    fail(`"file_storage.presign_ttl_s" must be a whole number of seconds from 1 to ${PRESIGN_TTL_MAX_S}`);
  }
  return {
    backend: 's3',
    bucket,
    prefix,
    region,
    endpoint,
    force_path_style: forcePathStyle,
    access_key_id: accessKeyId,
    secret_access_key: secretAccessKey,
    public_delivery: delivery(raw, 'public_delivery', fail),
    private_delivery: delivery(raw, 'private_delivery', fail),
    presign_ttl_s: ttl as number,
  };
}
