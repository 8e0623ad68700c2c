import type { Liquid } from 'liquidjs';
import { refusingFs } from './refusing-fs.js';
import { escapeIntoJson, JsonText } from './json-escape.js';
import { compilePlainTemplate, type PlainTemplate } from './plain-template.js';

/**
 * Webhook JSON bodies (`webhook_json`) rendered with LiquidJS, whose `{{ doc.name }}`,
 * `{% for %}` and `{% if %}` read like the reference's Jinja templates. Sandboxed: own properties
 * only, no file system (include/render of files fails), bounded template size, render time and
 * memory. Every output is escaped into JSON string content, so a value holding quotes or markup
 * can never break the body (docs/webhooks.md "Bodies"); `| tojson` inserts a value as JSON.
 */

/** A template that does not parse, renders too long, or does not produce JSON. */
export class TemplateError extends Error {}

/** The longest template LiquidJS parses. */
const PARSE_LIMIT = 100_000;

/**
 * How long one render may run, in ms (docs/webhooks.md "Bodies"): LiquidJS checks it before each
 * node, so no render holds the event loop much longer. A render past it is tried once more (see
 * renderWithLiquid) before the delivery fails. Templates render in the delivery job, one
 * at a time with the loop free between them, never in the write that matched.
 */
export const RENDER_BUDGET_MS = 40;
/** What one render may allocate, in characters (LiquidJS counts strings, ranges and arrays it builds). */
export const RENDER_MEMORY_LIMIT = 2_000_000;

let engine: Liquid | undefined;

/** The sandboxed engine, built on first use: a site without templated webhooks never loads LiquidJS. */
async function templateEngine(): Promise<Liquid> {
  if (engine) return engine;
  const { Liquid: Engine } = await import('liquidjs');
  const built = new Engine({
    ownPropertyOnly: true,
    fs: refusingFs,
    relativeReference: false,
    dynamicPartials: false,
    strictFilters: true,
    parseLimit: PARSE_LIMIT,
    renderLimit: RENDER_BUDGET_MS,
    memoryLimit: RENDER_MEMORY_LIMIT,
    outputEscape: escapeIntoJson,
  });
  built.registerFilter('tojson', (value: unknown) => new JsonText(JSON.stringify(value ?? null) ?? 'null'));
  engine = built;
  return built;
}

const parsed = new Map<string, ReturnType<Liquid['parse']>>();
const MAX_CACHED = 200;

async function parse(source: string): Promise<ReturnType<Liquid['parse']>> {
  let templates = parsed.get(source);
  if (!templates) {
    try {
      templates = (await templateEngine()).parse(source);
    } catch (err) {
      throw new TemplateError(`The JSON template does not parse: ${(err as Error).message}`);
    }
    if (parsed.size >= MAX_CACHED) parsed.delete(parsed.keys().next().value as string);
    parsed.set(source, templates);
  }
  return templates;
}

/** Plain templates by source (see plain-template.ts); `null` marks one LiquidJS must render. */
const plain = new Map<string, PlainTemplate | null>();

function plainTemplate(source: string): PlainTemplate | undefined {
  let compiled = plain.get(source);
  if (compiled === undefined) {
    compiled = (source.length <= PARSE_LIMIT ? compilePlainTemplate(source) : undefined) ?? null;
    if (plain.size >= MAX_CACHED) plain.delete(plain.keys().next().value as string);
    plain.set(source, compiled);
  }
  return compiled ?? undefined;
}

/** Renders `source` with `doc` and parses the result; an empty result is `{}`. */
export async function renderJsonTemplate(source: string, doc: Readonly<Record<string, unknown>>): Promise<unknown> {
  const fast = plainTemplate(source);
  const text = fast ? fast(doc) : await renderWithLiquid(source, doc);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new TemplateError(`The JSON template did not produce JSON: ${(err as Error).message}`);
  }
}

const OVER_TIME = /template render limit exceeded/;

async function renderWithLiquid(source: string, doc: Readonly<Record<string, unknown>>): Promise<string> {
  const templates = await parse(source);
  const engine = await templateEngine();
  // Rendered synchronously: our filters and the refusing file system never wait, and the
  // generator-to-promise steps of render() cost more than the render itself (docs/benchmarks.md).
  const render = () => String(engine.renderSync(templates, { doc }));
  try {
    try {
      return render();
    } catch (err) {
      if (!OVER_TIME.test((err as Error).message)) throw err;
      // A time budget is wall-clock time: a cold start (code LiquidJS runs for the first time) or a
      // busy machine can push a small template past it. One more try, after the event loop served
      // what waits; a runaway template fails again and has held the loop for two budgets at most.
      await new Promise((resolve) => setImmediate(resolve));
      return render();
    }
  } catch (err) {
    const message = (err as Error).message;
    if (OVER_TIME.test(message)) {
      throw new TemplateError(`The JSON template exceeded its render budget of ${RENDER_BUDGET_MS} ms and was stopped`);
    }
    if (/memory alloc limit exceeded/.test(message)) {
      throw new TemplateError(`The JSON template exceeded its render budget of ${RENDER_MEMORY_LIMIT} characters and was stopped`);
    }
    throw new TemplateError(`The JSON template failed to render: ${message}`);
  }
}

/** Checks a template when a Webhook is saved: it parses (rendering depends on documents). */
export async function checkJsonTemplate(source: string): Promise<void> {
  await parse(source);
}
