import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { siteSettings, type Settings } from '../site/site-settings.js';
import type { Site } from '../site/site.js';

/** What decides a CORS answer (setting `allow_cors`, developer mode). */
export interface CorsSettings {
  /** `"*"` for any origin, a list of origins, or null when browsers from other origins get nothing. */
  readonly allowCors: '*' | readonly string[] | null;
  readonly developerMode: boolean;
}

/** How long browsers may cache a preflight answer outside developer mode (reference §6.7). */
const PREFLIGHT_MAX_AGE_SECONDS = 86400;

/** Origins compare without case and without a trailing slash, which a hand-written list may carry. */
function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** True when `origin` may call with credentials under `allowCors`. */
export function originAllowed(allowCors: CorsSettings['allowCors'], origin: string | undefined): origin is string {
  if (!origin || allowCors === null) return false;
  if (allowCors === '*') return true;
  const wanted = normaliseOrigin(origin);
  return allowCors.some((allowed) => normaliseOrigin(allowed) === wanted);
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Sets the headers an allowed `origin` gets; every answer depends on Origin once CORS is configured. */
function applyOrigin(reply: FastifyReply, allowCors: CorsSettings['allowCors'], origin: string | undefined): boolean {
  // Shared caches must key on Origin whenever the answer depends on it.
  if (allowCors !== null) reply.header('Vary', 'Origin');
  const allowed = originAllowed(allowCors, origin);
  if (allowed) {
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Allow-Credentials', 'true');
  }
  return allowed;
}

/**
 * CORS as the reference does it: an allowed Origin is echoed with credentials allowed (never a
 * bare `*`, which browsers refuse with credentials); a preflight also echoes the requested method
 * and headers. Every `OPTIONS` request answers an empty 200 here, CORS configured or not, before
 * any route, body parsing or authentication runs.
 *
 * `allow_cors` comes from the settings function (System Settings over site_config.json). Ordinary
 * answers get their headers as they are sent, after the route's own metadata check, so a change
 * made in any process applies from the next request on at no extra cost; a preflight reaches no
 * route, so it checks the metadata version itself (and keeps the last known settings when the
 * database cannot be reached, since OPTIONS must always answer).
 */
export function registerCors(app: FastifyInstance, site: Site): void {
  const developerMode = site.config.developer_mode;
  app.addHook('onRequest', async (req, reply) => {
    if (req.method !== 'OPTIONS') return;
    const origin = header(req, 'origin');
    const allowCors = origin === undefined ? site.settingsCache.current.allow_cors : await preflightCors(site);
    const allowed = applyOrigin(reply, allowCors, origin);
    const requestedMethod = header(req, 'access-control-request-method');
    if (allowed && requestedMethod) {
      reply.header('Access-Control-Allow-Methods', requestedMethod);
      const requestedHeaders = header(req, 'access-control-request-headers');
      if (requestedHeaders) reply.header('Access-Control-Allow-Headers', requestedHeaders);
      if (!developerMode) reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    reply.code(200).send();
    return reply;
  });
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method !== 'OPTIONS') applyOrigin(reply, (await corsSettings(site)).allow_cors, header(req, 'origin'));
    return payload;
  });
}

/** The settings of an ordinary answer; never fails the answer (the last known settings serve). */
async function corsSettings(site: Site): Promise<Settings> {
  return siteSettings(site).catch(() => site.settingsCache.current);
}

async function preflightCors(site: Site): Promise<CorsSettings['allowCors']> {
  const settings = await siteSettings(site, { fresh: true }).catch(() => site.settingsCache.current);
  return settings.allow_cors;
}
