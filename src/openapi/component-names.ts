/**
 * Component schema names for DocTypes. OpenAPI allows only `[A-Za-z0-9._-]` in component keys, and
 * DocType names hold spaces ("Has Role"), so each DocType gets a name made of its words run
 * together (`HasRole`), made unique by a suffix when two DocTypes (or a fixed schema) would share
 * one. Names are given in sorted order, so the same set of DocTypes always gets the same names.
 */
export class ComponentNames {
  readonly #byDocType = new Map<string, string>();

  constructor(doctypes: Iterable<string>, reserved: Iterable<string>) {
    const taken = new Set(reserved);
    for (const doctype of [...doctypes].sort()) {
      const base = baseName(doctype);
      let name = base;
      for (let n = 2; clashes(taken, name); n++) name = `${base}_${n}`;
      for (const suffix of SUFFIXES) taken.add(name + suffix);
      this.#byDocType.set(doctype, name);
    }
  }

  /** True when `doctype` has schemas in this description. */
  has(doctype: string): boolean {
    return this.#byDocType.has(doctype);
  }

  /** The base component name of `doctype` (its read schema); `Create`, `Update`, `ListRow` follow it. */
  of(doctype: string): string {
    const name = this.#byDocType.get(doctype);
    if (name === undefined) throw new Error(`No component name for DocType ${doctype}`);
    return name;
  }
}

/** The schemas each DocType may have, by suffix of its base name. */
const SUFFIXES = ['', 'Create', 'Update', 'ListRow'] as const;

function clashes(taken: ReadonlySet<string>, name: string): boolean {
  return SUFFIXES.some((suffix) => taken.has(name + suffix));
}

function baseName(doctype: string): string {
  const words = doctype.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  if (joined === '') return 'DocType_';
  // A leading digit is allowed by OpenAPI but not by the TypeScript names generators derive.
  return /^[0-9]/.test(joined) ? `D${joined}` : joined;
}
