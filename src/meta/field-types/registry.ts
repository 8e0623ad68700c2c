import { DataError } from '../../errors/index.js';
import type { FieldType } from './field-type.js';

/** Field types by name; filled explicitly in index.ts, never through import side effects. */
export class FieldTypeRegistry {
  readonly #types = new Map<string, FieldType>();

  register(type: FieldType): this {
    this.#types.set(type.name, type);
    return this;
  }

  /** The type named `name`; an unknown fieldtype is a 417 DataError. */
  get(name: string): FieldType {
    const t = this.#types.get(name);
    if (!t) throw new DataError(`Unknown field type: ${name}`);
    return t;
  }

  has(name: string): boolean {
    return this.#types.has(name);
  }

  names(): string[] {
    return [...this.#types.keys()];
  }
}
