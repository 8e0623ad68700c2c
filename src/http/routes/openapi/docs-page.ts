import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DoesNotExistError } from '../../../errors/index.js';
import { matchesEtag } from './openapi-routes.js';

/*
 * The API reference page at /api/docs (docs/openapi.md): Swagger UI from the swagger-ui-dist
 * package, served from node_modules (no CDN, works offline), reading /api/openapi.json with the
 * caller's own cookie, so it shows what they may use. No inline script: the page's one script of
 * its own is a file too, so a strict Content-Security-Policy holds.
 */

/** Where the page and its files live. */
export const DOCS_PATH = '/api/docs';

/**
 * Everything from this origin only: no inline script or style (Swagger UI sets its dynamic styles
 * through the DOM, which the policy does not govern), images also as data: URLs (its icons), and
 * no framing by other sites. The browser test in test/api/openapi-docs-page.test.ts checks that
 * the page renders under it without a violation.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
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
  "frame-ancestors 'self'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fw API reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
</head>
<body>
<main id="swagger-ui"></main>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/fw-docs.js"></script>
</body>
</html>
`;

// Same-origin requests carry the session cookie; the validator badge would call a third-party site.
// Tags start closed, with a filter box: a site has a tag per DocType and hundreds of operations.
// "Try it out" writes with the session cookie carry its CSRF token (docs/security.md "Sessions and
// CSRF"), asked for once; calls made with a token or Basic header need none.
const INIT = `let csrfToken;
async function sessionCsrfToken() {
  if (csrfToken === undefined) {
    const res = await fetch('/api/method/fw.auth.get_csrf_token', { credentials: 'same-origin' });
    csrfToken = res.ok ? (await res.json()).message || null : null;
  }
  return csrfToken;
}
window.fwCsrfInterceptor = async function (request) {
  const verb = (request.method || 'GET').toUpperCase();
  const headers = request.headers || (request.headers = {});
  const authorized = Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
  if (verb !== 'GET' && verb !== 'HEAD' && !authorized) {
    const token = await sessionCsrfToken();
    if (token) headers['X-Frappe-CSRF-Token'] = token;
  }
  return request;
};
window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'none',
  filter: true,
  validatorUrl: null,
  requestInterceptor: window.fwCsrfInterceptor,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout'
});
`;

/** The files of swagger-ui-dist the page uses, with their content types. */
const PACKAGE_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

interface Asset {
  readonly body: Buffer;
  readonly gzip: Buffer | undefined;
  readonly type: string;
  readonly etag: string;
}

function asset(body: Buffer, type: string): Asset {
  const compressible = !type.startsWith('image/') && body.length > 1024;
  return {
    body,
    gzip: compressible ? gzipSync(body) : undefined,
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/** The files, read and compressed on first use: most processes never serve the page. */
function loadAssets(): Map<string, Asset> {
  const root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Asset>();
  for (const [file, type] of Object.entries(PACKAGE_FILES)) assets.set(file, asset(readFileSync(join(root, file)), type));
  assets.set('fw-docs.js', asset(Buffer.from(INIT), 'text/javascript; charset=utf-8'));
  return assets;
}

function send(req: FastifyRequest, reply: FastifyReply, file: Asset, cacheControl: string): FastifyReply {
  reply.header('Cache-Control', cacheControl).header('ETag', file.etag).header('Vary', 'Accept-Encoding').type(file.type);
  if (matchesEtag(req.headers['if-none-match'], file.etag)) return reply.code(304).send();
  if (file.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    return reply.header('Content-Encoding', 'gzip').send(file.gzip);
  }
  return reply.send(file.body);
}

/** `GET /api/docs` (the page) and `GET /api/docs/<file>` (Swagger UI's files and the page's script). */
export function registerDocsPage(app: FastifyInstance): void {
  let assets: Map<string, Asset> | undefined;
  const page = asset(Buffer.from(PAGE), 'text/html; charset=utf-8');
  app.get(DOCS_PATH, async (req, reply) => {
    reply.header('Content-Security-Policy', DOCS_CSP);
    return send(req, reply, page, 'no-cache');
  });
  app.get(`${DOCS_PATH}/:file`, async (req, reply) => {
    const { file } = req.params as { file: string };
    assets ??= loadAssets();
    const found = assets.get(file);
    if (!found) throw new DoesNotExistError(`No file ${file.slice(0, 200)} in the API reference`);
    // The package's files change only with an fw upgrade; the ETag revalidates them after a day.
    return send(req, reply, found, 'public, max-age=86400');
  });
}
