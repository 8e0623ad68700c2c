import type { FastifyInstance } from 'fastify';
import type { Site } from '../../site/site.js';
import { registerDocsPage } from './docs-page.js';
import { registerOpenApiRoutes } from './openapi-routes.js';

/** The API description routes (docs/openapi.md). */
export function registerOpenApi(app: FastifyInstance, site: Site): void {
  registerOpenApiRoutes(app, site);
  registerDocsPage(app);
}
