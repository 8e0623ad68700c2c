import { reactive } from 'vue';
import { api, type Doc } from './api';

/** The caller's rights on a DocType, as `fw.desk.boot` and `getdoctype` answer them. */
export interface Rights {
  read: boolean;
  write: boolean;
  create: boolean;
  delete: boolean;
  submit: boolean;
  cancel: boolean;
  amend: boolean;
  report: boolean;
  export: boolean;
  import: boolean;
  /** Permlevels whose fields the caller may write (getdoctype only). */
  write_levels?: number[];
}

export interface BootDocType {
  name: string;
  module: string;
  issingle: 0 | 1;
  is_submittable: 0 | 1;
  custom: 0 | 1;
  rights: Rights;
}

export interface Boot {
  user: string;
  full_name: string;
  roles: string[];
  is_system_manager: boolean;
  /** The realtime namespace when site_config.json names the site; else the host name is used. */
  site_name?: string | null;
  doctypes: BootDocType[];
}

/** The signed-in user and what they may reach; loaded once per page, again after schema edits. */
export const session = reactive<{ boot: Boot | null }>({ boot: null });

export async function loadBoot(): Promise<Boot> {
  const boot = await api.get<Boot>('fw.desk.boot');
  session.boot = boot;
  return boot;
}

/** The URL slug of a DocType, as the reference's desk writes it: `Sales Order` -> `sales-order`. */
export function slug(doctype: string): string {
  return doctype.toLowerCase().replace(/ /g, '-');
}

/** The DocType a slug names (an exact name is accepted too). */
export function doctypeFromSlug(value: string): string {
  const decoded = decodeURIComponent(value);
  const known = session.boot?.doctypes.find((d) => slug(d.name) === decoded.toLowerCase() || d.name === decoded);
  if (known) return known.name;
  // Not among the caller's DocTypes: `sales-order` is taken for `Sales Order`, and the server says whether it may be opened.
  return /^[a-z0-9-]+$/.test(decoded)
    ? decoded
        .split('-')
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join(' ')
    : decoded;
}

export function bootDocType(doctype: string): BootDocType | undefined {
  return session.boot?.doctypes.find((d) => d.name === doctype);
}

export function docUrl(doctype: string, name?: string): string {
  return `/app/${slug(doctype)}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}

/** A DocType and the child DocTypes of its tables, with the caller's rights. */
export interface MetaBundle {
  doc: Doc & { fields: DocField[]; permissions?: Doc[] };
  rights: Rights;
  children: Map<string, Doc & { fields: DocField[] }>;
}

export interface DocField {
  fieldname: string;
  label?: string;
  fieldtype: string;
  options?: string;
  default?: string;
  reqd?: 0 | 1;
  unique?: 0 | 1;
  hidden?: 0 | 1;
  read_only?: 0 | 1;
  allow_on_submit?: 0 | 1;
  set_only_once?: 0 | 1;
  in_list_view?: 0 | 1;
  in_standard_filter?: 0 | 1;
  permlevel?: number;
  description?: string;
  length?: number;
  precision?: string;
  fetch_from?: string;
  idx?: number;
  name?: string;
}

const metas = new Map<string, Promise<MetaBundle>>();

/** The metadata of a DocType, fetched once and kept until {@link forgetMeta}. */
export function getMeta(doctype: string): Promise<MetaBundle> {
  let known = metas.get(doctype);
  if (!known) {
    known = api.getBody('fw.desk.form.load.getdoctype', { doctype }).then((body) => {
      const docs = body.docs as (Doc & { fields: DocField[]; __rights?: Rights })[];
      const [doc, ...children] = docs;
      return { doc, rights: doc.__rights as Rights, children: new Map(children.map((c) => [String(c.name), c])) };
    });
    known.catch(() => metas.delete(doctype));
    metas.set(doctype, known);
  }
  return known;
}

/** Drops cached metadata after a DocType was saved here (other tabs reload on their next visit). */
export function forgetMeta(doctype?: string): void {
  if (doctype === undefined) metas.clear();
  else metas.delete(doctype);
}

/** Fields that hold no value: the layout's breaks and decorations. */
export const LAYOUT_TYPES = new Set(['Section Break', 'Column Break', 'Tab Break', 'HTML', 'Heading', 'Button', 'Image', 'Fold']);
/** Field types whose value is a list of child rows. */
export const TABLE_TYPES = new Set(['Table', 'Table MultiSelect']);

export function fieldLabel(f: { fieldname: string; label?: string }): string {
  return f.label || f.fieldname.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}
