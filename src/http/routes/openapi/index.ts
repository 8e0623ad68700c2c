import type { FastifyInstance } from 'fastify';
import type { Site } from '../../../site/site.js';
import { discoveryPaths, registerDiscoveryRoutes } from './discovery-routes.js';
import { registerDocsPage } from './docs-page.js';
import { registerOpenApiRoutes } from './openapi-routes.js';

/** The API description (/api/openapi.json, .yaml), its reference page (/api/docs) and method discovery (docs/openapi.md). */
export function registerOpenApi(app: FastifyInstance, site: Site): void {
  registerOpenApiRoutes(app, site, discoveryPaths);
  registerDocsPage(app);
  registerDiscoveryRoutes(app, site);
}
