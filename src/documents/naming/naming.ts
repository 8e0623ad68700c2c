import { InvalidUUIDValue, MandatoryError, NameError, ValidationError } from '../../errors/index.js';
import type { Doc } from '../../meta/doctype.js';
import type { Meta } from '../../meta/meta.js';
import type { Queryable } from '../../storage/database.js';
import type { Dialect } from '../../storage/dialect.js';
import { amendedName } from './amended-name.js';
import { hashName } from './hash-name.js';
import { expandFormat, expandSeries, type ExpressionInput } from './name-expression.js';
import { validateName } from './name-validation.js';
import { nextAutoincrementValue, nextSeriesValue, noteAutoincrementValue } from './naming-series.js';
import { parseUuid, uuid7 } from './uuid.js';

export { amendedName } from './amended-name.js';
export { validateName } from './name-validation.js';

/** What naming needs: the current transaction (series counters) and the site's time zone (date parts). */
export interface NamingContext {
  readonly q: Queryable;
  readonly dialect: Dialect;
  readonly timeZone: string;
}

/** How a DocType names new documents, decoded from its `autoname` (or `naming_rule`). */
export type NamingRule =
  | { readonly kind: 'hash' }
  | { readonly kind: 'autoincrement' }
  | { readonly kind: 'prompt' }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'field'; readonly fieldname: string }
  | { readonly kind: 'naming_series' }
  | { readonly kind: 'format'; readonly template: string }
  | { readonly kind: 'series'; readonly pattern: string };

const HASH: NamingRule = { kind: 'hash' };

/** `naming_rule` values that decide the name alone; the others need an `autoname` to act on. */
const BY_NAMING_RULE: Readonly<Record<string, NamingRule>> = {
  'Set by user': { kind: 'prompt' },
  Autoincrement: { kind: 'autoincrement' },
  Random: HASH,
  UUID: { kind: 'uuid' },
  'By "Naming Series" field': { kind: 'naming_series' },
};

/**
 * The naming rule of `meta`. `autoname` wins (the reference's DocType form writes `naming_rule`
 * into it); keywords and prefixes are matched case-insensitively, and anything not understood
 * falls back to `hash`, as in the reference.
 */
export function namingRuleOf(meta: Meta): NamingRule {
  const autoname = (meta.def.autoname ?? '').trim();
  if (autoname === '') return BY_NAMING_RULE[meta.def.naming_rule ?? ''] ?? HASH;
  const lower = autoname.toLowerCase();
  if (lower === 'hash') return HASH;
  if (lower === 'autoincrement') return { kind: 'autoincrement' };
  if (lower === 'uuid') return { kind: 'uuid' };
  if (lower.startsWith('prompt')) return { kind: 'prompt' };
  if (lower.startsWith('field:')) {
    const fieldname = autoname.slice('field:'.length).trim();
    return fieldname === '' ? HASH : { kind: 'field', fieldname };
  }
  if (lower.startsWith('naming_series:')) return { kind: 'naming_series' };
  if (lower.startsWith('format:')) return { kind: 'format', template: autoname.slice('format:'.length) };
  if (autoname.includes('#')) return { kind: 'series', pattern: autoname };
  return HASH;
}

/** A client-supplied name as text, undefined when absent or blank; names are always strings. */
function clientNameText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') throw new NameError('A document name must be a string');
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function uuidName(value: unknown): string {
  const uuid = parseUuid(value);
  if (uuid === undefined) {
    throw new InvalidUUIDValue(`Invalid value specified for UUID: ${String(value)}`);
  }
  return uuid;
}

/** The document this one amends, when its DocType records amendments and it names one. */
function amendedFromOf(meta: Meta, doc: Doc): string | undefined {
  const from = doc.amended_from;
  return typeof from === 'string' && from !== '' && meta.hasColumn('amended_from') ? from : undefined;
}

/** True when the stored document `name` is itself an amendment (its `amended_from` is set). */
async function isAmendment(meta: Meta, name: string, ctx: NamingContext): Promise<boolean> {
  const statement = ctx.dialect.builder.selectFrom(meta.tableName).select('amended_from').where('name', '=', name).limit(1).compile();
  const rows = await ctx.q.all<{ amended_from: unknown }>(statement);
  const from = rows[0]?.amended_from;
  return typeof from === 'string' && from !== '';
}

/** An autoincrement number small enough for the counter column, when a client chose the name. */
const COUNTER_NAME = /^[1-9]\d{0,8}$/;

/** The name by the DocType's own rule, before validation. */
async function nameByRule(rule: NamingRule, meta: Meta, doc: Doc, ctx: NamingContext, clientName: unknown): Promise<string> {
  const input: ExpressionInput = {
    doc,
    hasField: (fieldname) => meta.field(fieldname) !== undefined,
    timeZone: ctx.timeZone,
    at: Date.now(),
    counter: (prefix) => nextSeriesValue(ctx, prefix),
  };
  switch (rule.kind) {
    case 'hash':
      return hashName(input.at);
    case 'autoincrement':
      return String(await nextAutoincrementValue(ctx, meta.name));
    case 'uuid':
      return clientName === undefined || clientName === null || (typeof clientName === 'string' && clientName.trim() === '')
        ? uuid7(input.at)
        : uuidName(clientName);
    case 'prompt': {
      const name = clientNameText(clientName);
      if (name === undefined) throw new ValidationError('Please set the document name', { doctype: meta.name });
      return name;
    }
    case 'field': {
      const value = doc[rule.fieldname];
      const text = typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
      if (text === '') {
        throw new MandatoryError(`${meta.label(rule.fieldname)} is required`, { doctype: meta.name });
      }
      return text;
    }
    case 'naming_series':
      return expandSeries(namingSeriesPattern(meta, doc), input);
    case 'format':
      return expandFormat(rule.template, input);
    case 'series':
      return expandSeries(rule.pattern, input);
  }
}

/**
 * The pattern for `naming_series:`: the document's `naming_series`, else the first option of the
 * naming_series Select (written back into the document, as the reference does, so the stored
 * document records its series), with `.#####` appended when it has no counter.
 */
function namingSeriesPattern(meta: Meta, doc: Doc): string {
  let series = typeof doc.naming_series === 'string' ? doc.naming_series.trim() : '';
  if (series === '') {
    const options = meta.field('naming_series')?.def.options ?? '';
    series =
      options
        .split('\n')
        .map((o) => o.trim())
        .find((o) => o !== '') ?? '';
    if (series !== '') doc.naming_series = series;
  }
  if (series === '') throw new MandatoryError('Naming Series mandatory', { doctype: meta.name });
  return series.includes('#') ? series : `${series}.#####`;
}

/**
 * Decides the name of a new document (docs/api.md "Documents") and returns it validated. Singles are named
 * after their DocType, child rows get a hash, an amendment gets its original's name with a
 * counter, everything else follows the DocType's naming rule. A client-supplied `clientName` is
 * ignored unless the rule is `prompt` or `UUID`, or `keepClientName` is set (v2 inserts).
 * May fill `naming_series` of `doc` with the default series.
 */
export async function nameDocument(meta: Meta, doc: Doc, ctx: NamingContext, opts: { clientName?: unknown; keepClientName?: boolean } = {}): Promise<string> {
  if (meta.isSingle) return meta.name;
  const rule = meta.isChild ? HASH : namingRuleOf(meta);
  const kept = opts.keepClientName ? clientNameText(opts.clientName) : undefined;
  if (kept !== undefined) {
    // A UUID DocType still holds only UUIDs, whoever chose the value.
    if (rule.kind === 'uuid') return validateName(meta, uuidName(kept));
    if (rule.kind === 'autoincrement' && COUNTER_NAME.test(kept)) {
      await noteAutoincrementValue(ctx, meta.name, Number(kept));
    }
    return validateName(meta, kept);
  }
  // Autoincrement and UUID names must stay numbers and UUIDs, so amendments follow the rule too.
  const amendedFrom = rule.kind === 'autoincrement' || rule.kind === 'uuid' ? undefined : amendedFromOf(meta, doc);
  if (amendedFrom !== undefined) {
    return validateName(meta, amendedName(amendedFrom, await isAmendment(meta, amendedFrom, ctx)));
  }
  return validateName(meta, await nameByRule(rule, meta, doc, ctx, opts.clientName));
}
