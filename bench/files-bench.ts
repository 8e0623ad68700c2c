// `npm run bench -- --files`: file throughput on each storage backend (docs/benchmarks.md "Files"). For the
// local backend and for an S3-compatible server (s3rver on loopback), one `fw serve` process each: upload and
// download throughput (MB/s) of `--mb` files, GET requests per second of a small private file (fw checks read
// permission on every one), and the server's peak RSS while one `--big-mb` file (default 1024) streams in.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort } from './free-port.js';
import { createFwSite } from './fw-process.js';
import { resolveFwEntry, type FwEntry } from './fw-entry.js';
import { peakRssBytes, resetPeakRss } from './process-memory.js';
import { spawnServer, waitUntilServing, type ServerProcess } from './server-process.js';

export const FILES_USAGE = 'npm run bench -- --files [--mb 16] [--count 4] [--big-mb 1024] [--seconds 5] [--backend local|s3]';
const MiB = 1024 * 1024;

interface FileFigures {
  readonly backend: string;
  readonly uploadMBps: number;
  readonly downloadMBps: number;
  readonly privateGetRps: number;
  readonly bigUploadMiB: number;
  readonly bigUploadSeconds: number;
  readonly peakRssMiB: number | undefined;
  /** Resident size just before the big upload began. */
  readonly rssBeforeMiB: number | undefined;
}

/** The server's resident size now (VmRSS), in MiB; undefined without /proc. */
function currentRssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/** Logs in as Administrator and makes an API key pair. */
async function adminToken(origin: string, password: string): Promise<string> {
  const login = await fetch(`${origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ usr: 'Administrator', pwd: password }),
  });
  const sid = /sid=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  const keys = await fetch(`${origin}/api/method/fw.core.doctype.user.user.generate_keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `sid=${sid}` },
    body: JSON.stringify({ user: 'Administrator' }),
  });
  const { api_key, api_secret } = ((await keys.json()) as { message: { api_key: string; api_secret: string } }).message;
  return `token ${api_key}:${api_secret}`;
}

/**
 * POSTs a private upload of `bytes` bytes, generated chunk by chunk (never whole in memory, here or
 * in fw), each upload different so deduplication never short-cuts it. Resolves with the file_url.
 */
function streamUpload(origin: string, auth: string, name: string, bytes: number): Promise<string> {
  const boundary = `fw-bench-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="is_private"\r\n\r\n1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = randomBytes(MiB);
  return new Promise((resolve, reject) => {
    const req = request(`${origin}/api/method/upload_file`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + bytes + tail.length },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve((JSON.parse(text) as { message: { file_url: string } }).message.file_url)
          : reject(new Error(`upload: ${res.statusCode} ${text.slice(0, 300)}`)),
      );
    });
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    let round = 0;
    const pump = () => {
      while (sent < bytes) {
        const piece = Buffer.from(chunk.subarray(0, Math.min(MiB, bytes - sent)));
        // A different first bytes per MiB: every upload's content (and hash) is its own.
        piece.writeUInt32LE(round++, 0);
        piece.write(name.slice(0, 16), 4);
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end(tail);
    };
    pump();
  });
}

/** GETs `path` to its end; resolves with the bytes received. */
function download(origin: string, auth: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { headers: { authorization: auth } }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`GET ${path}: ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function benchBackend(
  entry: FwEntry,
  backend: 'local' | 's3',
  options: { mb: number; count: number; bigMb: number; seconds: number },
  log: (line: string) => void,
): Promise<FileFigures> {
  const root = await mkdtemp(join(tmpdir(), 'fw-bench-files-'));
  let s3: { close(): Promise<void>; fileStorage(): Record<string, unknown> } | undefined;
  let server: ServerProcess | undefined;
  try {
    const site = createFwSite(entry, join(root, 'site'), undefined);
    const configFile = join(site.dir, 'site_config.json');
    const config = JSON.parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
    if (backend === 's3') {
      // The test helper's s3rver (loopback, its own temporary folder).
      const { startS3Server } = await import('../test/helpers/s3-server.js');
      s3 = await startS3Server();
    }
    const limit = Math.max(options.bigMb, options.mb) * MiB + MiB;
    await writeFile(
      configFile,
      JSON.stringify({ ...config, max_file_size: limit, max_request_size: limit, ...(s3 ? { file_storage: s3.fileStorage() } : {}) }),
    );
    const port = await freePort();
    server = spawnServer({
      name: `fw (${backend})`,
      args: [...entry.nodeArgs, 'serve', '--site', site.dir, '--port', String(port), '--jobs', '0'],
      cores: undefined,
      port,
      env: { FW_LOG_LEVEL: 'warn' },
    });
    await waitUntilServing(server, '/api/method/ping');
    const auth = await adminToken(server.origin, site.adminPassword);

    let start = performance.now();
    const urls: string[] = [];
    for (let i = 0; i < options.count; i++) urls.push(await streamUpload(server.origin, auth, `up-${i}.bin`, options.mb * MiB));
    const uploadSeconds = (performance.now() - start) / 1000;
    start = performance.now();
    let received = 0;
    for (const url of urls) received += await download(server.origin, auth, url);
    const downloadSeconds = (performance.now() - start) / 1000;
    log(`  ${backend}: ${options.count} × ${options.mb} MiB up in ${uploadSeconds.toFixed(1)} s, down in ${downloadSeconds.toFixed(1)} s`);

    const small = await streamUpload(server.origin, auth, 'small.txt', 1024);
    const gets = await autocannon({ url: `${server.origin}${small}`, connections: 10, duration: options.seconds, headers: { authorization: auth } });
    if (gets.non2xx > 0 || gets.errors > 0) throw new Error(`private GET: ${gets.non2xx} answers were not 2xx, ${gets.errors} errors`);
    const rps = Math.round(gets.requests.total / gets.duration);
    log(`  ${backend}: private GET ${rps} req/s`);

    const rssBefore = currentRssMiB(server.pid);
    resetPeakRss(server.pid);
    start = performance.now();
    await streamUpload(server.origin, auth, 'big.bin', options.bigMb * MiB);
    const bigSeconds = (performance.now() - start) / 1000;
    const peak = peakRssBytes(server.pid);
    log(`  ${backend}: ${options.bigMb} MiB upload in ${bigSeconds.toFixed(1)} s, peak RSS ${peak === undefined ? '?' : Math.round(peak / MiB)} MiB`);
    return {
      backend,
      uploadMBps: round1((options.count * options.mb) / uploadSeconds),
      downloadMBps: round1(received / MiB / downloadSeconds),
      privateGetRps: rps,
      bigUploadMiB: options.bigMb,
      bigUploadSeconds: round1(bigSeconds),
      peakRssMiB: peak === undefined ? undefined : Math.round(peak / MiB),
      rssBeforeMiB: rssBefore,
    };
  } finally {
    await server?.stop();
    await s3?.close();
    await rm(root, { recursive: true, force: true });
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** Runs the files scenario on each backend asked for (both by default). */
export async function runFilesBench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== '--files'),
    options: {
      mb: { type: 'string' },
      count: { type: 'string' },
      'big-mb': { type: 'string' },
      seconds: { type: 'string' },
      backend: { type: 'string', multiple: true },
      fw: { type: 'string' },
    },
  });
  const number = (text: string | undefined, fallback: number) => (text === undefined ? fallback : Number(text));
  const options = { mb: number(values.mb, 16), count: number(values.count, 4), bigMb: number(values['big-mb'], 1024), seconds: number(values.seconds, 5) };
  if (Object.values(options).some((v) => !Number.isInteger(v) || v < 1)) {
    console.error(`bench: --mb, --count, --big-mb and --seconds take whole numbers above 0\n\n${FILES_USAGE}`);
    return 2;
  }
  const backends = (values.backend ?? ['local', 's3']) as ('local' | 's3')[];
  const entry = resolveFwEntry((values.fw ?? 'auto') as 'auto', console.log);
  console.log(entry.note);
  const results: FileFigures[] = [];
  for (const backend of backends) results.push(await benchBackend(entry, backend, options, console.log));
  console.log(
    `\n| backend | upload MB/s (${options.count} × ${options.mb} MiB) | download MB/s | private GET req/s (1 KiB, 10 connections) | ${options.bigMb} MiB upload | RSS before → peak during it |\n|---|---|---|---|---|---|`,
  );
  for (const r of results) {
    console.log(
      `| ${r.backend} | ${r.uploadMBps} | ${r.downloadMBps} | ${r.privateGetRps} | ${r.bigUploadSeconds} s | ${r.rssBeforeMiB ?? '?'} → ${r.peakRssMiB ?? '?'} MiB |`,
    );
  }
  return 0;
}
