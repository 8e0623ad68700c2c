import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PermissionError } from '../../errors/index.js';
import { authenticate } from '../authenticate.js';
import type { RequestStep } from '../request-pipeline.js';
import type { Site } from '../../site/site.js';
import { clusterMetricsText } from '../../metrics/cluster-metrics.js';
import { siteMetrics } from '../../metrics/site-metrics.js';

/** The URLs that answer the metrics: the conventional one and the method paths of both prefixes. */
export const METRICS_URLS = [
  '/metrics',
  '/api/method/fw.metrics',
  '/api/method/frappe.metrics',
  '/api/v1/method/fw.metrics',
  '/api/v1/method/frappe.metrics',
] as const;

/** Compares secrets in constant time, whatever their lengths (hashes are compared, not the texts). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Who may read the metrics (docs/deployment.md "Metrics"): a request bearing site_config's
 * `metrics_token` as `Authorization: Bearer <token>` (a scraper needs no user), or a System
 * Manager by session or API token. Guest and every other user: 403; credentials that name nobody
 * (a wrong bearer token included): 401.
 */
async function authorize(site: Site, req: FastifyRequest): Promise<void> {
  const token = site.config.metrics_token;
  const header = req.headers.authorization;
  if (token && header !== undefined && /^bearer\s/i.test(header) && sameSecret(header.slice(7).trim(), token)) return;
  const { principal } = await authenticate(site, req);
  if (principal.isGuest) throw new PermissionError('Login required to read the metrics');
  if (!principal.roles.has('System Manager')) throw new PermissionError('Only a System Manager may read the metrics');
}

/**
 * The route a request is counted under: its route pattern, except that a call of a registered
 * method is counted under the method's own path (`/api/method/frappe.client.get_list`), which
 * tells far more than `/api/method/*`. Unknown method names stay under the pattern, so a client
 * cannot mint labels.
 */
function routeLabel(site: Site, req: FastifyRequest): string | undefined {
  const pattern = req.routeOptions.url;
  if (pattern === undefined || !pattern.endsWith('/method/*')) return pattern;
  const path = (req.params as { '*'?: string })['*']?.split('/')[0] ?? '';
  const method = path === '' ? undefined : site.methods.resolve(path);
  return method ? `${pattern.slice(0, -1)}${method.path}` : pattern;
}

/** Counts every answered request by its route pattern and status (an onResponse step). */
export function countAnswers(site: Site): RequestStep {
  const metrics = siteMetrics(site);
  return (req, reply) => {
    metrics.observe(req.method, routeLabel(site, req), reply.statusCode, reply.elapsedTime / 1000);
    return undefined;
  };
}

/** `GET /metrics` and `GET /api/method/fw.metrics` (also `frappe.metrics`): the site's metrics in the Prometheus text format. */
export function registerMetricsRoutes(app: FastifyInstance, site: Site): void {
  const metrics = siteMetrics(site);
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    await authorize(site, req);
    // Under `fw serve --workers N`, every worker's series by way of the primary; else this process's.
    const text = (await clusterMetricsText()) ?? (await metrics.registry.metrics());
    return reply.type(metrics.registry.contentType).send(text);
  };
  for (const url of METRICS_URLS) app.get(url, handler);
}
