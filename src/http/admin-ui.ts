import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DoesNotExistError } from '../errors/index.js';
import type { Site } from '../site/site.js';

/*
 * The admin web UI (docs/admin-ui.md): a single-page app built at install into dist/ui, served here
 * from memory. The page itself (/app, /app/..., /login) is never cached and carries a strict
 * Content-Security-Policy; the scripts and styles it loads have content hashes in their names and
 * are cached for a year. Nothing here builds anything: a missing build is reported, not repaired.
 */

/** One file of the build, ready to send. */
interface Asset {
  readonly body: Buffer;
  readonly gzip: Buffer | undefined;
  readonly type: string;
  readonly etag: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/**
 * No inline script or style may run: scripts and styles come only from this origin. `connect-src`
 * names ws/wss of the same host for the realtime socket; `img-src` allows data: and blob: for image
 * previews of uploads.
 */
export const ADMIN_UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  // No frame loads a URL and no worker starts, whatever markup slips into the page. An
  // `<iframe srcdoc>` loads none and inherits this policy, so it runs only scripts of this origin,
  // which uploads never are (docs/security.md, "Headers").
  "frame-src 'none'",
  "child-src 'none'",
  "worker-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The build folder: `dist/ui` under the package root, found from this module's place in src/ or dist/src/. */
export function defaultUiDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'ui');
}

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

function toAsset(body: Buffer, type: string): Asset {
  const compressible = type.startsWith('text/') || type.startsWith('application/json') || type === 'image/svg+xml';
  return {
    body,
    gzip: compressible && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/** Every file of the build keyed by its URL path (`/assets/index-3f2a.js`), and the page. */
function loadBuild(dir: string): { page: Asset; assets: Map<string, Asset> } | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const assets = new Map<string, Asset>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const file of walk(assetDir)) {
      const url = '/' + relative(dir, file).split(sep).join('/');
      assets.set(url, toAsset(readFileSync(file), TYPES[extname(file)] ?? 'application/octet-stream'));
    }
  }
  return { page: toAsset(readFileSync(index), TYPES['.html']), assets };
}

function send(req: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string): FastifyReply {
  reply.header('Cache-Control', cacheControl).header('ETag', asset.etag).header('X-Content-Type-Options', 'nosniff');
  reply.header('Vary', 'Accept-Encoding').type(asset.type);
  if (req.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  const acceptsGzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  if (asset.gzip && acceptsGzip) return reply.header('Content-Encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

/** The page's security headers: CSP, no framing, no referrer to other sites. */
function pageHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', ADMIN_UI_CSP);
  reply.header('X-Frame-Options', 'DENY');
  reply.header('Referrer-Policy', 'same-origin');
}

const NOT_BUILT = Buffer.from(
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>fw</title></head><body>' +
    '<h1>The admin UI is not built</h1><p>Run <code>npm run build</code> (npm install does it) and restart fw.</p></body></html>',
);

/**
 * Serves the admin UI unless `admin_ui` is false in site_config.json. `uiDir` defaults to the
 * package's `dist/ui`; tests point it elsewhere.
 */
export function registerAdminUi(app: FastifyInstance, site: Site, uiDir: string = defaultUiDir()): void {
  if (!site.config.admin_ui) return;
  const build = loadBuild(uiDir);

  const page = async (req: FastifyRequest, reply: FastifyReply) => {
    pageHeaders(reply);
    if (!build) return reply.code(503).header('Cache-Control', 'no-store').type(TYPES['.html']).send(NOT_BUILT);
    // The page names the current hashed assets, so it must never be served from a cache.
    return send(req, reply, build.page, 'no-store');
  };
  app.get('/app', page);
  app.get('/app/*', page);
  app.get('/login', page);
  // The page a password reset mail links to (docs/mail.md "Password reset").
  app.get('/update-password', page);
  // The page a first two-factor login mails a link to (docs/identity.md "Two-factor login").
  app.get('/qrcode', page);

  app.get('/assets/*', async (req, reply) => {
    const path = req.url.split('?')[0];
    const asset = build?.assets.get(path);
    if (!asset) throw new DoesNotExistError(`No asset ${path.slice(0, 200)}`);
    return send(req, reply, asset, 'public, max-age=31536000, immutable');
  });
}
