import { sql, type RawBuilder } from 'kysely';
import { DataError, PermissionError } from '../errors/index.js';
import type { Meta } from '../meta/meta.js';
import { refText, type FieldRef } from './list-query.js';
import { fieldColumn, standardColumn, type ResolvedColumn } from './resolved-column.js';

/** The alias of the listed DocType's table. */
export const MAIN_ALIAS = 't';

/** A LEFT JOIN the query needs: a Link target or a child table. */
export interface Join {
  readonly alias: string;
  readonly table: string;
  readonly on: RawBuilder<boolean>;
  /** Child joins give one row per child row. */
  readonly kind: 'link' | 'child';
}

/** What resolving needs from the compile context. */
export interface ScopeContext {
  readonly meta: Meta;
  readonly metaOf: (doctype: string) => Meta;
  /** Whether the caller may read this field; when false, filtering or sorting on it is a 403. */
  readonly canRead?: (meta: Meta, fieldname: string) => boolean;
  /**
   * The extra ON condition of a Link join, limiting it to the linked rows the caller may read
   * (link-rows.ts); undefined when every row of `target` is readable.
   */
  readonly linkRows?: (alias: string, target: Meta) => RawBuilder<boolean> | undefined;
}

interface Target {
  readonly alias: string;
  readonly meta: Meta;
}

/**
 * Resolves column references against metadata for one statement and collects the joins they need.
 * Every identifier in the SQL comes from here, so it is always a name the metadata holds.
 */
export class QueryScope {
  readonly #ctx: ScopeContext;
  readonly #joins = new Map<string, Join>();
  #counters = { link: 0, child: 0 };

  constructor(ctx: ScopeContext) {
    this.#ctx = ctx;
  }

  /** The joins made so far, in the order they were needed. */
  get joins(): readonly Join[] {
    return [...this.#joins.values()];
  }

  /** The `name` column of the listed DocType. */
  get mainName(): ResolvedColumn {
    return standardColumn(MAIN_ALIAS, 'name');
  }

  /**
   * The column `ref` names, or a DataError "Field not permitted in query" when metadata does not
   * know it. `check` says whether the caller's read permission applies (restrictions from the
   * permission layer itself skip it).
   */
  resolve(ref: FieldRef, check = true): ResolvedColumn {
    const resolved = this.#tryResolve(ref);
    if (!resolved) throw notPermitted(ref);
    if (check && this.#ctx.canRead && !this.#ctx.canRead(resolved.meta, ref.field)) {
      throw new PermissionError(`Insufficient permission for ${refText(ref)}`);
    }
    return resolved.column;
  }

  /**
   * Like `resolve`, for a select item: undefined when the caller may not read the field, which the
   * reference drops silently from the select list.
   */
  resolveSelected(ref: FieldRef): ResolvedColumn | undefined {
    const resolved = this.#tryResolve(ref);
    if (!resolved) throw notPermitted(ref);
    if (this.#ctx.canRead && !this.#ctx.canRead(resolved.meta, ref.field)) return undefined;
    return resolved.column;
  }

  /** The columns `*` stands for: standard columns, then every readable value field. */
  allColumns(): ResolvedColumn[] {
    const { meta, canRead } = this.#ctx;
    const standard = meta.standardColumns.map((c) => standardColumn(MAIN_ALIAS, c));
    const values = meta.valueFields.filter((f) => !f.type.secret && (!canRead || canRead(meta, f.def.fieldname))).map((f) => fieldColumn(MAIN_ALIAS, f));
    return [...standard, ...values];
  }

  #tryResolve(ref: FieldRef): { meta: Meta; column: ResolvedColumn } | undefined {
    const target = this.#target(ref);
    if (!target) return undefined;
    const { meta, alias } = target;
    if (meta.standardColumns.includes(ref.field) || meta.collaborationColumns.includes(ref.field)) return { meta, column: standardColumn(alias, ref.field) };
    const field = meta.field(ref.field);
    if (!field || field.column === undefined || field.type.secret) return undefined;
    return { meta, column: fieldColumn(alias, field) };
  }

  /** The table a reference points into, joining it when it is not the listed one. */
  #target(ref: FieldRef): Target | undefined {
    const { meta } = this.#ctx;
    const main = { alias: MAIN_ALIAS, meta };
    if (ref.doctype !== undefined) {
      if (ref.doctype === meta.name) return main;
      const tables = meta.tableFields.filter((f) => f.def.options === ref.doctype);
      if (tables.length === 1) return this.#childJoin(tables[0].def.fieldname, ref.doctype);
      if (tables.length > 1) return this.#childJoin(undefined, ref.doctype);
      return undefined;
    }
    if (ref.via === undefined) return main;
    const via = meta.field(ref.via);
    if (!via) return ref.via === meta.tableName ? main : undefined;
    const options = via.def.options?.trim();
    if (!options) return undefined;
    if (via.type.isTable) return this.#childJoin(ref.via, options);
    if (via.type.options === 'doctype') return this.#linkJoin(ref.via, options);
    return undefined;
  }

  #linkJoin(linkField: string, doctype: string): Target {
    const key = `link:${linkField}`;
    const target = this.#ctx.metaOf(doctype);
    const existing = this.#joins.get(key);
    if (existing) return { alias: existing.alias, meta: target };
    const alias = `link_${++this.#counters.link}`;
    const on = sql<boolean>`${sql.id(alias, 'name')} = ${sql.id(MAIN_ALIAS, linkField)}`;
    const readable = this.#ctx.linkRows?.(alias, target);
    this.#joins.set(key, {
      alias,
      table: target.tableName,
      kind: 'link',
      on: readable === undefined ? on : sql<boolean>`${on} and ${readable}`,
    });
    return { alias, meta: target };
  }

  /** A child table, limited to the rows of one table field when `tableField` is given. */
  #childJoin(tableField: string | undefined, doctype: string): Target {
    const key = tableField === undefined ? `child:${doctype}` : `table:${tableField}`;
    const target = this.#ctx.metaOf(doctype);
    const existing = this.#joins.get(key);
    if (existing) return { alias: existing.alias, meta: target };
    const alias = `child_${++this.#counters.child}`;
    const parent = sql<boolean>`${sql.id(alias, 'parent')} = ${sql.id(MAIN_ALIAS, 'name')} and ${sql.id(alias, 'parenttype')} = ${this.#ctx.meta.name}`;
    this.#joins.set(key, {
      alias,
      table: target.tableName,
      kind: 'child',
      on: tableField === undefined ? parent : sql<boolean>`${parent} and ${sql.id(alias, 'parentfield')} = ${tableField}`,
    });
    return { alias, meta: target };
  }
}

function notPermitted(ref: FieldRef): DataError {
  return new DataError(`Field not permitted in query: ${refText(ref)}`);
}
