import type { DocContext } from '../documents/doc-context.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { Queryable, Row } from '../storage/database.js';
import type { Dialect } from '../storage/dialect.js';
import { parseCondition, type Condition } from './condition.js';
import { WEBHOOK, WEBHOOK_DATA, WEBHOOK_HEADER } from './doctypes/index.js';

/** An enabled Webhook as the recorder needs it, with its condition parsed once. */
export interface WebhookDef {
  readonly name: string;
  /** Who created it: deliveries carry only what this user may read (docs/webhooks.md "Whose eyes"). */
  readonly owner: string;
  readonly doctype: string;
  readonly event: string;
  /** Undefined when the stored condition does not parse (the webhook then never matches). */
  readonly condition: Condition | undefined;
  readonly url: string;
  readonly method: string;
  readonly structure: string;
  readonly json: string;
  readonly queue: string | undefined;
  readonly headers: readonly { key: string; value: string }[];
  readonly data: readonly { fieldname: string; key: string }[];
}

/**
 * The site's enabled webhooks by (DocType, event), read once per metadata load: saving or deleting
 * a Webhook bumps the metadata version (webhook-controller.ts), so every process reads them again
 * on its next unit of work, and a write that matches nothing costs a map lookup.
 */
export class WebhookCache {
  #loadedFor = -1;
  #byEvent = new Map<string, WebhookDef[]>();

  /** The enabled webhooks for `event` on `doctype`. */
  async forEvent(ctx: DocContext, doctype: string, event: string): Promise<readonly WebhookDef[]> {
    if (this.#loadedFor !== ctx.metas.loads) await this.#load(ctx);
    return this.#byEvent.get(`${doctype}\u0000${event}`) ?? [];
  }

  async #load(ctx: DocContext): Promise<void> {
    const loads = ctx.metas.loads;
    const byEvent = new Map<string, WebhookDef[]>();
    for (const def of await readWebhookDefs({ q: ctx.q, dialect: ctx.dialect, metas: ctx.metas })) {
      const key = `${def.doctype}\u0000${def.event}`;
      byEvent.set(key, [...(byEvent.get(key) ?? []), def]);
    }
    this.#byEvent = byEvent;
    this.#loadedFor = loads;
  }
}

/** Where webhook definitions are read from. */
export interface WebhookSource {
  readonly q: Queryable;
  readonly dialect: Dialect;
  readonly metas: MetaRegistry;
}

/**
 * The enabled webhooks with their headers and data rows; or, given `name`, that one webhook
 * whether enabled or not (the delivery job renders with the webhook as it is then).
 */
export async function readWebhookDefs(source: WebhookSource, name?: string): Promise<WebhookDef[]> {
  const { q, dialect, metas } = source;
  const b = dialect.builder;
  let query = b.selectFrom(metas.get(WEBHOOK).tableName).selectAll();
  query = name === undefined ? query.where('enabled', '=', 1).orderBy('name') : query.where('name', '=', name);
  const hooks = await q.all<Row>(query.compile());
  if (hooks.length === 0) return [];
  const children = async (doctype: string) => {
    let rows = b.selectFrom(metas.get(doctype).tableName).selectAll().where('parenttype', '=', WEBHOOK);
    if (name !== undefined) rows = rows.where('parent', '=', name);
    const byParent = new Map<string, Row[]>();
    for (const r of await q.all<Row>(rows.orderBy('idx').compile())) byParent.set(String(r.parent), [...(byParent.get(String(r.parent)) ?? []), r]);
    return byParent;
  };
  const headers = await children(WEBHOOK_HEADER);
  const data = await children(WEBHOOK_DATA);
  return hooks.map((h): WebhookDef => {
    let condition: Condition | undefined;
    try {
      condition = parseCondition(String(h.condition ?? ''));
    } catch {
      condition = undefined;
    }
    return {
      name: String(h.name),
      owner: String(h.owner ?? ''),
      doctype: String(h.webhook_doctype),
      event: String(h.webhook_docevent),
      condition,
      url: String(h.request_url ?? ''),
      method: String(h.request_method || 'POST'),
      structure: String(h.request_structure ?? ''),
      json: String(h.webhook_json ?? ''),
      queue: h.background_jobs_queue ? String(h.background_jobs_queue) : undefined,
      headers: (headers.get(String(h.name)) ?? []).filter((r) => r.key).map((r) => ({ key: String(r.key).trim(), value: String(r.value ?? '') })),
      data: (data.get(String(h.name)) ?? []).map((r) => ({ fieldname: String(r.fieldname), key: String(r.key) })),
    };
  });
}
