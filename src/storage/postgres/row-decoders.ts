import type pg from 'pg';
import type { Row } from '../database.js';

/** The part of a RowDescription field a row decoder reads. */
export interface FieldDescription {
  readonly name: string;
  readonly dataTypeID: number;
}

type Parser = (text: string) => unknown;

/** Statements whose decoders are kept; past it the cache starts again (list filters can vary without end). */
const MAX_DECODERS = 1000;

/** Turns the text values of one statement's rows into objects keyed by column name. */
export class RowDecoder {
  readonly #fields: readonly FieldDescription[];
  readonly #parsers: readonly Parser[];

  constructor(fields: readonly FieldDescription[], types: pg.CustomTypesConfig) {
    this.#fields = fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }));
    this.#parsers = fields.map((f) => types.getTypeParser(f.dataTypeID, 'text') as Parser);
  }

  /** True when `fields` describe the same columns (a DocType change alters what `select *` returns). */
  describes(fields: readonly FieldDescription[]): boolean {
    if (fields.length !== this.#fields.length) return false;
    for (let i = 0; i < fields.length; i++) {
      if (fields[i].name !== this.#fields[i].name || fields[i].dataTypeID !== this.#fields[i].dataTypeID) return false;
    }
    return true;
  }

  decode(values: readonly (string | null)[]): Row {
    const row: Row = {};
    for (let i = 0; i < values.length; i++) {
      const text = values[i];
      row[this.#fields[i].name] = text === null ? null : this.#parsers[i](text);
    }
    return row;
  }
}

/**
 * The row decoders of one pool's statements, by SQL text: a hot statement (a document read by
 * name, a list page) is answered with the same columns every time, and node-postgres would look
 * up each column's type parser again for every result (docs/benchmarks.md "What keeps the hot
 * path fast"). A decoder is checked against each RowDescription before it is used.
 */
export class RowDecoders {
  readonly #types: pg.CustomTypesConfig;
  readonly #byText = new Map<string, RowDecoder>();

  constructor(types: pg.CustomTypesConfig) {
    this.#types = types;
  }

  for(text: string, fields: readonly FieldDescription[]): RowDecoder {
    const known = this.#byText.get(text);
    if (known?.describes(fields)) return known;
    if (this.#byText.size >= MAX_DECODERS) this.#byText.clear();
    const decoder = new RowDecoder(fields, this.#types);
    this.#byText.set(text, decoder);
    return decoder;
  }
}
