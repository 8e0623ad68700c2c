import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver ships no types; only run() and close() are used.
// @ts-expect-error: untyped package
import S3rver from 's3rver';

/** A real S3-compatible server (s3rver) on 127.0.0.1, with one bucket. It does not check signatures. */
export interface S3Server {
  readonly endpoint: string;
  readonly bucket: string;
  /** Where s3rver keeps the objects. */
  readonly directory: string;
  /** A `file_storage` value for site_config.json, under its own prefix so sites sharing the server stay apart. */
  fileStorage(extra?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  readonly httpServer: { unref(): void };
}

export const TEST_BUCKET = 'fw-test-files';

/** Starts s3rver on a free loopback port, storing under a fresh temporary folder; `unref`: it does not keep the process alive. */
export async function startS3Server(options: { unref?: boolean } = {}): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'fw-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: TEST_BUCKET }],
  }) as S3rverInstance;
  const address = await server.run();
  if (options.unref) server.httpServer.unref();
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket: TEST_BUCKET,
    directory,
    fileStorage(extra = {}) {
      return {
        backend: 's3',
        bucket: TEST_BUCKET,
        prefix: `sites/${randomUUID()}`,
        region: 'us-east-1',
        endpoint,
        force_path_style: true,
        // s3rver's fixed pair (it accepts any signature, but the SDK wants something to sign with).
        access_key_id: 'S3RVER',
        secret_access_key: 'S3RVER',
        ...extra,
      };
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

let shared: Promise<S3Server> | undefined;

/** One s3rver per test process, started on first use; it does not hold the process open, and its folder goes at exit. */
export function sharedS3Server(): Promise<S3Server> {
  if (!shared) {
    shared = startS3Server({ unref: true });
    void shared.then((s) => {
      process.once('exit', () => rmSync(s.directory, { recursive: true, force: true }));
    });
  }
  return shared;
}
