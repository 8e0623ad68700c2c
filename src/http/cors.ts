import type { FastifyReply, FastifyRequest } from 'fastify';
import { siteSettings } from '../settings/site-settings.js';
import type { Site } from '../site/site.js';
import { type AllowCors, originAllowed, originListed } from '../settings/origin-policy.js';
import { ANSWERED, type RequestStep } from './request-pipeline.js';

/** What decides a CORS answer (setting `allow_cors`, developer mode). */
export interface CorsSettings {
  /** `"*"` for any origin, a list of origins, or null when browsers from other origins get nothing. */
  readonly allowCors: AllowCors;
  readonly developerMode: boolean;
}

/** How long browsers may cache a preflight answer outside developer mode (docs/configuration.md). */
const PREFLIGHT_MAX_AGE_SECONDS = 86400;

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
    // Credentials only for origins listed by name: `"*"` lets any page read answers, so it must
    // not be any page reading them with the visitor's session.
    if (originListed(allowCors, origin)) reply.header('Access-Control-Allow-Credentials', 'true');
  }
  return allowed;
}

/**
 * CORS as the reference does it, made safe: an allowed Origin is echoed (never a bare `*`), with
 * credentials allowed only when `allow_cors` lists it by name, never under `"*"`, and never for
 * the origin `null`; a preflight also echoes the requested method and headers. Every `OPTIONS` request answers an empty 200 here, CORS configured or not, before
 * any route, body parsing or authentication runs.
 *
 * `allow_cors` comes from the settings function (System Settings over site_config.json), checked
 * against the metadata version for every request that carries an Origin: many answers never run
 * a unit of work that would refresh the settings (unknown routes, refused verbs, bad bodies,
 * `ping`), and a change made in any process must apply to the very next request. Requests
 * without an Origin get no CORS headers, so they need no check. When the database cannot be
 * reached the last known settings serve, since OPTIONS and error answers must always go out.
 */
export function corsSteps(site: Site): { preflight: RequestStep; headers: RequestStep } {
  const developerMode = site.config.developer_mode;
  const answerPreflight = async (req: FastifyRequest, reply: FastifyReply): Promise<typeof ANSWERED> => {
    const origin = header(req, 'origin');
    const allowCors = await corsFor(site, origin);
    const allowed = applyOrigin(reply, allowCors, origin);
    const requestedMethod = header(req, 'access-control-request-method');
    if (allowed && requestedMethod) {
      reply.header('Access-Control-Allow-Methods', requestedMethod);
      const requestedHeaders = header(req, 'access-control-request-headers');
      if (requestedHeaders) reply.header('Access-Control-Allow-Headers', requestedHeaders);
      if (!developerMode) reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    reply.code(200).send();
    return ANSWERED;
  };
  return {
    // An onRequest step: every OPTIONS request is answered here, by sending from the hook.
    preflight: (req, reply) => (req.method === 'OPTIONS' ? answerPreflight(req, reply) : undefined),
    // An onSend step.
    headers: (req, reply) => {
      const origin = header(req, 'origin');
      // Without an Origin there is nothing to judge: no database check, no promise.
      if (req.method === 'OPTIONS' || origin === undefined) {
        if (req.method !== 'OPTIONS') applyOrigin(reply, site.settingsCache.current.allow_cors, undefined);
        return undefined;
      }
      return applyCors(site, req, reply);
    },
  };
}

/**
 * Sets the CORS headers of an ordinary (non-preflight) answer; for answers that skip the onSend
 * hooks, such as Fastify's framework errors, so a browser client can read those too.
 */
export async function applyCors(site: Site, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const origin = header(req, 'origin');
  applyOrigin(reply, await corsFor(site, origin), origin);
}

/**
 * `allow_cors` for a request from `origin`: fresh when there is an origin to judge (one indexed
 * read of the metadata version, which also keeps this process's metadata in step), the last
 * known value otherwise (it then decides only whether to add `Vary: Origin`).
 */
async function corsFor(site: Site, origin: string | undefined): Promise<CorsSettings['allowCors']> {
  if (origin === undefined) return site.settingsCache.current.allow_cors;
  const settings = await siteSettings(site, { fresh: true }).catch(() => site.settingsCache.current);
  return settings.allow_cors;
}
