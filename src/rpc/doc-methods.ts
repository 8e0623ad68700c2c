import { DoesNotExistError, PermissionError, TimestampMismatchError } from '../errors/index.js';
import { mergePatch } from '../documents/build-document.js';
import type { DocContext } from '../documents/doc-context.js';
import type { Doc } from '../meta/doctype.js';
import type { Meta } from '../meta/meta.js';
import type { HttpExchange, HttpVerb } from './http-exchange.js';
import type { MethodServices } from './method-services.js';

/** A call of a document method: the document it runs on and the caller's arguments. */
export interface DocMethodCall {
  readonly ctx: DocContext;
  /** The site's services a handler may use (docs/apps.md); never the site itself. */
  readonly services: MethodServices;
  /**
   * The document as stored, overlaid with the client's unsaved values when run_doc_method sent
   * `docs`. A handler may change it in place: unless the handler saved the document, the caller
   * gets this object back in `docs`, as the reference returns its in-memory document.
   */
  readonly doc: Doc;
  /** Keyword arguments: a dict `args` spread, any other value under `args`; run_method's form fields. */
  readonly args: Readonly<Record<string, unknown>>;
  readonly http: HttpExchange;
}

export type DocMethodHandler = (call: DocMethodCall) => Promise<unknown>;

/** Registration options of a document method. */
export interface DocMethodOptions {
  /** Verbs the method allows; default GET, POST, PUT, DELETE as for whitelisted methods. */
  readonly methods?: readonly HttpVerb[];
  /**
   * False for a controller method that server code may call but clients may not; calling it over
   * HTTP answers 403, as calling a non-whitelisted method does in the reference.
   */
  readonly whitelisted?: boolean;
  /** What the method does, for `/api/v2/discovery/doctype/<DocType>` (first line: the summary). */
  readonly description?: string;
  /**
   * For a method of every DocType (`*`): the DocTypes it applies to (submit, cancel and discard
   * apply to submittable ones), so discovery lists it only there. Default: every DocType.
   */
  readonly appliesTo?: (meta: Meta) => boolean;
}

/** A successful run of a document method, as listeners see it (inside the caller's unit of work). */
export interface DocMethodRun {
  readonly ctx: DocContext;
  readonly doctype: string;
  readonly method: string;
  /** The document after the method (as stored if it saved it). */
  readonly doc: Doc;
  /** GET runs in a read unit: a listener must not write then. */
  readonly verb: HttpVerb;
}

export type DocMethodListener = (run: DocMethodRun) => Promise<void>;

/** A registered document method. */
export interface DocMethodDefinition {
  readonly doctype: string;
  readonly name: string;
  readonly handler: DocMethodHandler;
  readonly methods: readonly HttpVerb[];
  readonly whitelisted: boolean;
  readonly description: string | undefined;
  readonly appliesTo: ((meta: Meta) => boolean) | undefined;
}

const DEFAULT_VERBS: readonly HttpVerb[] = ['GET', 'POST', 'PUT', 'DELETE'];

/** Controller methods by DocType (`*` for every DocType), callable through run_doc_method and run_method. */
export class DocMethodRegistry {
  readonly #methods = new Map<string, DocMethodDefinition>();
  readonly #listeners: DocMethodListener[] = [];

  /** Calls `listener` after every successful run of a whitelisted document method (Method notifications, docs/mail.md "Notifications"). */
  onRun(listener: DocMethodListener): void {
    this.#listeners.push(listener);
  }

  /** The listeners of successful runs, in registration order. */
  get runListeners(): readonly DocMethodListener[] {
    return this.#listeners;
  }

  /** Registers `handler` as method `name` of `doctype` (or of every DocType with `*`), replacing an earlier one. */
  register(doctype: string, name: string, handler: DocMethodHandler, options: DocMethodOptions = {}): this {
    this.#methods.set(key(doctype, name), {
      doctype,
      name,
      handler,
      methods: options.methods ?? DEFAULT_VERBS,
      whitelisted: options.whitelisted ?? true,
      description: options.description,
      appliesTo: options.appliesTo,
    });
    return this;
  }

  /**
   * The whitelisted methods clients may call on documents of `meta`, by name: the DocType's own,
   * and those of every DocType that apply to it (discovery lists them).
   */
  forDocType(meta: Meta): DocMethodDefinition[] {
    const byName = new Map<string, DocMethodDefinition>();
    for (const def of this.#methods.values()) {
      if (def.doctype === '*' && !byName.has(def.name) && (def.appliesTo?.(meta) ?? true)) byName.set(def.name, def);
      if (def.doctype === meta.name) byName.set(def.name, def);
    }
    return [...byName.values()].filter((d) => d.whitelisted).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The method `name` of `doctype`: the DocType's own registration first, then one for every DocType. */
  resolve(doctype: string, name: string): DocMethodDefinition | undefined {
    return this.#methods.get(key(doctype, name)) ?? this.#methods.get(key('*', name));
  }
}

function key(doctype: string, name: string): string {
  return `${doctype}\u0000${name}`;
}

/** One invocation of a document method over HTTP. */
export interface DocMethodInvocation {
  readonly ctx: DocContext;
  readonly services: MethodServices;
  /** Where the method is looked up (the site's MethodRegistry.docMethods). */
  readonly docMethods: DocMethodRegistry;
  readonly http: HttpExchange;
  readonly doctype: string;
  readonly name: string;
  readonly method: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The right the caller needs on the document: read (run_doc_method, GET run_method) or write (POST run_method). */
  readonly right: 'read' | 'write';
  /** The client's copy of the document (run_doc_method `docs`): checked to be current, then overlaid. */
  readonly clientDoc?: Doc;
}

/** What a document method answered, and the document to send back (callers present it, v1 or v2). */
export interface DocMethodOutcome {
  readonly result: unknown;
  readonly doc: Doc;
}

/**
 * Runs a whitelisted document method: the document must exist and be readable (or writable), so
 * no method lookup reveals anything about documents the caller may not see; then an unknown method
 * is 404, a non-whitelisted one or a verb it does not allow 403. A Single's document is named after
 * its DocType (another name is 404); a child table is 417, reached only through its parent.
 */
export async function invokeDocMethod(inv: DocMethodInvocation): Promise<DocMethodOutcome> {
  const { ctx, services, doctype, name } = inv;
  const meta = ctx.metas.get(doctype);
  const stored = await services.documents.get(ctx, doctype, name);
  if (inv.right === 'write') {
    // Judged on the stored document itself: a read hides fields the caller may not read, which a rule may need.
    await services.documents.authorize(ctx, meta, 'write', (await loadStored(inv)) ?? stored);
  }

  const doc: Doc = structuredClone(stored);
  if (inv.clientDoc) {
    const sent = inv.clientDoc.modified;
    if (sent !== undefined && sent !== null && String(sent) !== stored.modified) {
      throw new TimestampMismatchError(
        `Error: ${name} (${doctype}) has been modified after you have opened it ` +
          `(${String(stored.modified)}, ${String(sent)}). Please refresh to get the latest document.`,
        { doctype },
      );
    }
    mergePatch(meta, doc, inv.clientDoc);
  }

  const definition = inv.docMethods.resolve(doctype, inv.method);
  if (!definition) {
    throw new DoesNotExistError(`Method ${inv.method} not found on ${doctype}`, {
      messages: [{ message: `${doctype} has no method ${inv.method}`, title: 'Not Found' }],
    });
  }
  if (!definition.whitelisted) {
    throw new PermissionError('Not permitted', {
      messages: [{ message: `Method ${inv.method} of ${doctype} is not whitelisted`, title: 'Method Not Allowed' }],
    });
  }
  if (!definition.methods.includes(inv.http.verb)) {
    throw new PermissionError('Not permitted', {
      messages: [{ message: `${inv.http.verb} is not allowed for ${inv.method}`, title: 'Method Not Allowed' }],
    });
  }

  const result = await definition.handler({ ctx, services, doc, args: inv.args, http: inv.http });
  const after = await documentAfter(inv, stored, doc);
  for (const listener of inv.docMethods.runListeners) await listener({ ctx, doctype, method: inv.method, doc: after, verb: inv.http.verb });
  return { result, doc: after };
}

/** The document as stored, without permission checks; undefined once deleted. */
function loadStored(inv: DocMethodInvocation): Promise<Doc | undefined> {
  return inv.services.documents.load(inv.ctx, inv.doctype, inv.name);
}

/**
 * The document to send back: as stored when the method saved it, else the in-memory one, which
 * carries the method's unsaved changes (and is all that is left when the method deleted it).
 */
async function documentAfter(inv: DocMethodInvocation, stored: Doc, inMemory: Doc): Promise<Doc> {
  const { ctx, services, doctype, name } = inv;
  const now = await loadStored(inv);
  if (!now || now.modified === stored.modified) return inMemory;
  return services.documents.get(ctx, doctype, name);
}

/**
 * The keyword arguments of run_doc_method from its `args` parameter (JSON text or a value): a dict
 * is spread; anything else arrives under `args`; text that is not JSON is passed as text.
 */
export function docMethodArgs(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    try {
      value = JSON.parse(value);
    } catch {
      return { args: raw };
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return { ...(value as Record<string, unknown>) };
  return { args: value };
}
