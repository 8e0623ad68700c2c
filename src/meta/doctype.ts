/*
 * The shapes of metadata. A DocType is itself a document: these are the fields of the DocType,
 * DocField and DocPerm DocTypes (docs/apps.md "DocTypes", "DocType JSON format").
 */

export type Check = 0 | 1;

/** One field of a DocType (a DocField row). */
export interface DocField {
  readonly fieldname: string;
  readonly label?: string;
  readonly fieldtype: string;
  readonly options?: string;
  readonly default?: string;
  readonly reqd?: Check;
  readonly unique?: Check;
  readonly length?: number;
  readonly precision?: string;
  readonly non_negative?: Check;
  readonly set_only_once?: Check;
  readonly search_index?: Check;
  readonly permlevel?: number;
  readonly hidden?: Check;
  readonly read_only?: Check;
  readonly allow_on_submit?: Check;
  readonly fetch_from?: string;
  readonly fetch_if_empty?: Check;
  readonly ignore_user_permissions?: Check;
  readonly no_copy?: Check;
  readonly in_list_view?: Check;
  readonly in_standard_filter?: Check;
  /** Indexed for global search (docs/search.md "What is indexed"). */
  readonly in_global_search?: Check;
  readonly description?: string;
  readonly idx?: number;
}

/** The rights a DocPerm row can grant. */
export const PERMISSION_TYPES = [
  'select',
  'read',
  'write',
  'create',
  'delete',
  'submit',
  'cancel',
  'amend',
  'report',
  'export',
  'import',
  'share',
  'print',
  'email',
] as const;

export type PermissionType = (typeof PERMISSION_TYPES)[number];

/** One role-permission row of a DocType. */
export type DocPerm = {
  readonly role: string;
  readonly permlevel?: number;
  readonly if_owner?: Check;
} & { readonly [K in PermissionType]?: Check };

/** A DocType definition as stored in tabDocType/tabDocField/tabDocPerm and shipped as JSON. */
export interface DocTypeDef {
  readonly name: string;
  readonly module?: string;
  readonly custom?: Check;
  readonly istable?: Check;
  readonly issingle?: Check;
  readonly is_submittable?: Check;
  readonly autoname?: string;
  readonly naming_rule?: string;
  readonly title_field?: string;
  readonly search_fields?: string;
  readonly sort_field?: string;
  readonly sort_order?: string;
  readonly track_changes?: Check;
  /** Record a View Log each time a form of a document is opened (docs/collaboration.md "Views"). */
  readonly track_views?: Check;
  readonly allow_rename?: Check;
  readonly description?: string;
  readonly fields: readonly DocField[];
  readonly permissions?: readonly DocPerm[];
}

/** Columns every document table has, in output order. */
export const STANDARD_FIELDS = ['name', 'owner', 'creation', 'modified', 'modified_by', 'docstatus', 'idx'] as const;

/** Extra columns of child-table rows. */
export const CHILD_FIELDS = ['parent', 'parentfield', 'parenttype'] as const;

/** A document as services pass it around: standard fields, field values and inline child rows. */
export type Doc = Record<string, unknown>;
