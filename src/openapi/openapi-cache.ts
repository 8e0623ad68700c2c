import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Principal } from '../auth/principal.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { MethodRegistry } from '../rpc/method-registry.js';
import { buildOpenApi } from './build-openapi.js';
import type { OpenApiObject } from './json-schema.js';

/** A built description in both serialisations, each with its ETag. */
export interface DescribedApi {
  readonly json: string;
  readonly jsonEtag: string;
  /** Serialised on first request: most callers want JSON only. */
  yaml(): Promise<{ readonly text: string; readonly etag: string }>;
}

function etagOf(text: string): string {
  return `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
}

let version: string | undefined;

/** fw's version from its package.json, found from this module's place in src/ or dist/src/. */
export function fwVersion(): string {
  if (version !== undefined) return version;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    version = String((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0');
  } catch {
    version = '0.0.0';
  }
  return version;
}

/** A description weighs up to a few hundred kilobytes of text: a handful of role sets is what a site has. */
const MAX_ENTRIES = 16;

/** What the descriptions are built from: the site's metadata and methods. */
export interface OpenApiSource {
  readonly metas: MetaRegistry;
  readonly methods: MethodRegistry;
}

/**
 * Descriptions by (metadata version, method registrations, role set, `?doctype=`): everyone with
 * the same roles sees the same description (docs/openapi.md "Caching"), so it is built once per
 * role set until a DocType or a method changes. At most 16 are kept, the oldest dropped first.
 */
export class OpenApiCache {
  readonly #entries = new Map<string, DescribedApi>();
  #generation = '';
  readonly #site: OpenApiSource;
  readonly #extraPaths: () => Record<string, Record<string, OpenApiObject>>;

  constructor(site: OpenApiSource, extraPaths: () => Record<string, Record<string, OpenApiObject>> = () => ({})) {
    this.#site = site;
    this.#extraPaths = extraPaths;
  }

  /** The description for `principal`; call inside a unit of work, so the metadata is current. */
  get(principal: Principal, doctype: string | undefined): DescribedApi {
    const generation = `${this.#site.metas.loads}:${this.#site.methods.revision}`;
    if (generation !== this.#generation) {
      this.#entries.clear();
      this.#generation = generation;
    }
    const key = JSON.stringify([principal.isAdministrator, principal.isGuest, [...principal.roles].sort(), doctype ?? null]);
    const cached = this.#entries.get(key);
    if (cached) return cached;
    const document = buildOpenApi({
      metas: this.#site.metas,
      methods: this.#site.methods.list(),
      principal,
      ...(doctype !== undefined ? { doctype } : {}),
      version: fwVersion(),
      extraPaths: this.#extraPaths(),
    });
    // Only the text is kept: the document's objects would weigh several times more.
    const json = JSON.stringify(document);
    let yaml: { text: string; etag: string } | undefined;
    const entry: DescribedApi = {
      json,
      jsonEtag: etagOf(json),
      async yaml() {
        if (!yaml) {
          // The YAML writer is loaded on the first YAML request only (most clients want JSON).
          const { stringify } = await import('yaml');
          const text = stringify(JSON.parse(json), { aliasDuplicateObjects: false, lineWidth: 0 });
          yaml = { text, etag: etagOf(text) };
        }
        return yaml;
      },
    };
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, entry);
    return entry;
  }
}
