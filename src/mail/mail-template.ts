import type { Liquid } from 'liquidjs';
import { refusingFs } from '../webhooks/refusing-fs.js';

/**
 * Mail subjects and bodies rendered with LiquidJS, sandboxed as webhook bodies are
 * (docs/webhooks.md "Bodies"): own properties only, no file system, bounded template size, render
 * time and memory. HTML bodies escape every output (`| raw` opts out); subjects are plain text.
 * Jinja-named filters users of the reference write are added: `length`, `format_date`,
 * `format_datetime`, `tojson` (docs/mail.md "Templates").
 */

/** A template that does not parse or fails to render. */
export class MailTemplateError extends Error {}

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: unknown): string => String(value ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/** `2031-01-31` as `31-01-2031` (the reference's default date format dd-mm-yyyy), or with `format` (dd, mm, yyyy, HH, MM, ss). */
function formatDate(value: unknown, format = 'dd-mm-yyyy'): string {
  const m = DATE.exec(String(value ?? ''));
  if (!m) return String(value ?? '');
  const parts: Record<string, string> = { yyyy: m[1]!, mm: m[2]!, dd: m[3]!, HH: m[4] ?? '00', MM: m[5] ?? '00', ss: m[6] ?? '00' };
  return String(format).replace(/yyyy|dd|mm|HH|MM|ss/g, (token) => parts[token]!);
}

const engines = new Map<'html' | 'text', Liquid>();

async function engine(kind: 'html' | 'text'): Promise<Liquid> {
  const cached = engines.get(kind);
  if (cached) return cached;
  const { Liquid: Engine } = await import('liquidjs');
  const built = new Engine({
    ownPropertyOnly: true,
    fs: refusingFs,
    relativeReference: false,
    dynamicPartials: false,
    strictFilters: true,
    parseLimit: 100_000,
    renderLimit: 1_000,
    memoryLimit: 10_000_000,
    outputEscape: kind === 'html' ? escapeHtml : undefined,
  });
  built.registerFilter('length', (value: unknown) =>
    Array.isArray(value) || typeof value === 'string' ? value.length : value && typeof value === 'object' ? Object.keys(value).length : 0,
  );
  built.registerFilter('format_date', (value: unknown, format?: string) => formatDate(value, format));
  built.registerFilter('format_datetime', (value: unknown, format?: string) => formatDate(value, format ?? 'dd-mm-yyyy HH:MM:ss'));
  built.registerFilter('tojson', (value: unknown) => JSON.stringify(value ?? null));
  engines.set(kind, built);
  return built;
}

/** Checks that `source` parses; throws MailTemplateError with LiquidJS's reason. */
export async function checkMailTemplate(source: string, what: string): Promise<void> {
  try {
    (await engine('html')).parse(source);
  } catch (err) {
    throw new MailTemplateError(`${what} is not a valid template: ${(err as Error).message}`);
  }
}

/** Renders `source` with `context` (`doc` and the caller's args), HTML-escaped or as plain text. */
export async function renderMailTemplate(source: string, context: Record<string, unknown>, kind: 'html' | 'text', what: string): Promise<string> {
  try {
    const liquid = await engine(kind);
    return String(await liquid.parseAndRender(source, context));
  } catch (err) {
    throw new MailTemplateError(`${what} could not be rendered: ${(err as Error).message}`);
  }
}
