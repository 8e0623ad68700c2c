import { finished } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { andThen, type MaybePromise } from '../async/maybe-promise.js';
import type { Principal } from '../auth/principal.js';
import type { HttpExchange, HttpVerb } from '../rpc/method-registry.js';
import type { Site } from '../site/site.js';
import { UserMessages } from '../documents/user-messages.js';
import { authenticate } from './authenticate.js';
import { attachmentDisposition } from './content-disposition.js';
import { checkCsrf } from './csrf.js';
import { requestVerb } from './request-verb.js';

/** The per-request facts handlers need, passed explicitly rather than read from globals. */
export interface RequestContext {
  readonly site: Site;
  readonly principal: Principal;
  readonly requestId: string;
  readonly sid: string | undefined;
  /** The messages for the user the request's work adds; pass the context as the unit's options to collect them. */
  readonly messages: UserMessages;
  /** Marks the units run with this context as a request's, so maintenance applies (Site.write). */
  readonly request: true;
}

/** Authenticates the request and bundles what its handler needs: at once when authentication answers at once. */
export function requestContext(site: Site, req: FastifyRequest): MaybePromise<RequestContext> {
  return andThen(authenticate(site, req), ({ principal, sid, csrfToken, sidFromParameter }) => {
    // Only the cookie is sent by browsers on their own; authenticate read System Settings just now.
    if (sid !== undefined && !sidFromParameter) checkCsrf(req, { csrfToken }, site.settingsCache.current.allow_cors);
    return contextOf(site, principal, req.id, sid);
  });
}

/** The context of a request already authenticated as `principal`. */
export function contextOf(site: Site, principal: Principal, requestId: string, sid: string | undefined): RequestContext {
  return { site, principal, requestId, sid, messages: new UserMessages(), request: true };
}

/** `custom/<provider>` of `/api/method/fw.integrations.oauth2_logins.custom/<provider>?…`: the path after the method's own. */
function methodPathTail(url: string): string {
  const match = /^\/api\/(?:v1\/)?method\/[^/?]+\/([^?]*)/.exec(url);
  if (!match) return '';
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return '';
  }
}

/** The cookie attributes of docs/api.md: Path /, SameSite Lax, Secure behind https. */
export function httpExchange(req: FastifyRequest, reply: FastifyReply, sid: string | undefined): HttpExchange {
  const secure = req.protocol === 'https';
  return {
    verb: requestVerb(req).toUpperCase() as HttpVerb,
    apiVersion: req.url.startsWith('/api/v2/') ? 'v2' : 'v1',
    ip: req.ip,
    userAgent: req.headers['user-agent'],
    sid,
    secure,
    origin: `${req.protocol}://${req.host}`,
    pathTail: methodPathTail(req.url),
    extraBody: {},
    cookie: (name) => (req.headers.cookie ? req.server.parseCookie(req.headers.cookie)[name] : undefined),
    redirect(location) {
      reply.code(302).header('location', location);
    },
    setCookie(name, value, options) {
      reply.setCookie(name, value, {
        path: '/',
        sameSite: 'lax',
        secure,
        httpOnly: options.httpOnly ?? false,
        ...(options.maxAge !== undefined ? { maxAge: options.maxAge } : {}),
      });
    },
    clearCookie(name) {
      reply.setCookie(name, '', { path: '/', sameSite: 'lax', secure, expires: new Date(0), maxAge: 0 });
    },
    async sendDownload({ fileName, contentType, body }) {
      reply.header('content-disposition', attachmentDisposition(fileName)).type(contentType).send(body);
      // Rejects when the body failed or the client left; Fastify has then closed the connection.
      await finished(body).catch(() => undefined);
    },
  };
}
