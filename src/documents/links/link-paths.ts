import { fixedLinkTarget } from '../../meta/field-links.js';
import type { Meta } from '../../meta/meta.js';
import type { DocContext } from '../doc-context.js';

/** One field, in any DocType (child tables and Singles included), that can point at a document of a target DocType. */
export interface LinkPath {
  readonly meta: Meta;
  readonly fieldname: string;
  /** For a Dynamic Link, the field holding the target DocType; the link counts only when it names the target. */
  readonly typeField?: string;
}

const pathsByTarget = new WeakMap<Meta, readonly LinkPath[]>();

/**
 * Every Link field whose options name `target`, and every Dynamic Link whose type field is stored,
 * across all DocTypes. Computed once per compiled Meta: a metadata change recompiles every Meta, so
 * a cached list never outlives the DocTypes it was read from.
 */
export function linkPathsTo(ctx: DocContext, target: Meta): readonly LinkPath[] {
  const cached = pathsByTarget.get(target);
  if (cached) return cached;
  const paths: LinkPath[] = [];
  for (const doctype of ctx.metas.names()) {
    const meta = ctx.metas.get(doctype);
    for (const f of meta.valueFields) {
      const { fieldname, options } = f.def;
      if (fixedLinkTarget(f) === target.name) paths.push({ meta, fieldname });
      else if (f.type.options === 'doctype-field' && options && meta.hasColumn(options)) paths.push({ meta, fieldname, typeField: options });
    }
  }
  pathsByTarget.set(target, paths);
  return paths;
}
