import type { Principal } from '../auth/principal.js';
import { FrappeTypeError } from '../errors/index.js';
import type { DocContext } from '../documents/doc-context.js';
import { DocMethodRegistry, type DocMethodHandler, type DocMethodOptions } from './doc-methods.js';
import type { HttpExchange, HttpVerb } from './http-exchange.js';
import type { MethodServices } from './method-services.js';
import {
  isParamsSchema,
  paramsValidator,
  schemaOfSpecs,
  specsOfSchema,
  type JsonSchema,
  type ParamSpec,
  type ParamsSchema,
  type ParamType,
} from './method-params.js';

export type { JsonSchema, ParamSpec, ParamsSchema, ParamType } from './method-params.js';
export type { Download, HttpExchange, HttpVerb } from './http-exchange.js';
export type { MethodServices } from './method-services.js';

/** A call of a whitelisted method. */
export interface MethodCall {
  readonly ctx: DocContext;
  readonly args: Readonly<Record<string, unknown>>;
  /** The site's services a handler may use (docs/apps.md); never the site itself. */
  readonly services: MethodServices;
  readonly http: HttpExchange;
}

export type MethodHandler = (call: MethodCall) => Promise<unknown>;

/** Registration options: who may call, with which verbs, with which parameters. */
export interface MethodOptions {
  readonly allowGuest?: boolean;
  readonly methods?: readonly HttpVerb[];
  /**
   * The parameters: a list of ParamSpecs, or one JSON Schema object whose properties are the
   * parameters (docs/openapi.md "Method parameters"). Either way they are coerced, validated,
   * described in /api/openapi.json and listed by /api/v2/discovery.
   */
  readonly params?: readonly ParamSpec[] | ParamsSchema;
  /** What the method does, for the API description and discovery (first line: the summary). */
  readonly description?: string;
  /** The JSON Schema of what the method returns (the `message` of v1, the `data` of v2), for the description. */
  readonly result?: JsonSchema;
  /**
   * The handler opens its own transactions (`services.transaction`) and gets a read-only context
   * holding no connection (`Site.detached`): for work that must be stored even when the call then
   * fails (login counts a failed attempt).
   */
  readonly ownTransactions?: boolean;
  /** False for methods that never touch the database (`ping`), so they answer while it is down. */
  readonly usesDatabase?: boolean;
  /**
   * The method sets a session cookie (login): a call a browser sends from another site's page is
   * refused like a cookie-authenticated write, with or without a cookie (http/csrf.ts).
   */
  readonly startsSession?: boolean;
  /**
   * Only callers holding one of these roles may call the method (the Administrator always): others
   * get 403 before it runs, and the API description and discovery do not list it for them
   * (docs/api.md "Methods"). Unset: every signed-in user (and Guest with `allowGuest`).
   */
  readonly roles?: readonly string[];
  /**
   * The method only reads (the reference's `@read_only`): it runs in a read unit whatever the verb,
   * so a long answer (an export) never holds a write transaction.
   */
  readonly readOnly?: boolean;
}

/** A registered method. */
export interface MethodDefinition {
  readonly path: string;
  readonly handler: MethodHandler;
  readonly allowGuest: boolean;
  readonly methods: readonly HttpVerb[];
  /** The coercions of the parameters (derived from the schema when one was given). */
  readonly params: readonly ParamSpec[];
  /** The parameters as one JSON Schema object. */
  readonly schema: ParamsSchema;
  readonly description: string | undefined;
  readonly result: JsonSchema | undefined;
  readonly ownTransactions: boolean;
  readonly usesDatabase: boolean;
  readonly startsSession: boolean;
  readonly roles: readonly string[] | undefined;
  readonly readOnly: boolean;
}

/** True when `principal` may call `def`: Guest only what allows guests, and only holders of its roles when it names any. */
export function mayCallMethod(def: MethodDefinition, principal: Principal): boolean {
  if (principal.isGuest) return def.allowGuest;
  if (def.roles === undefined || principal.isAdministrator) return true;
  return def.roles.some((role) => principal.roles.has(role));
}

const DEFAULT_VERBS: readonly HttpVerb[] = ['GET', 'POST', 'PUT', 'DELETE'];

/**
 * Whitelisted methods by dotted path. A path registered under `fw.` also answers under `frappe.`
 * (and the other way round), so clients written for the reference work unchanged.
 */
export class MethodRegistry {
  readonly #methods = new Map<string, MethodDefinition>();
  #revision = 0;
  /** Whitelisted document (controller) methods, reached through run_doc_method and run_method. */
  readonly docMethods = new DocMethodRegistry();

  register(path: string, handler: MethodHandler, options: MethodOptions = {}): this {
    const declared = options.params ?? [];
    const schema = isParamsSchema(declared) ? declared : schemaOfSpecs(declared);
    const validate = paramsValidator(schema);
    this.#revision++;
    this.#methods.set(path, {
      path,
      // Arguments reach the handler coerced (bindArguments) and checked against the schema; the
      // check runs inside the unit of work, so a refusal there leaves nothing behind.
      handler: (call) => {
        validate(call.args);
        return handler(call);
      },
      allowGuest: options.allowGuest ?? false,
      methods: options.methods ?? DEFAULT_VERBS,
      params: isParamsSchema(declared) ? specsOfSchema(declared) : declared,
      schema,
      // A schema's own description describes the method, as a docstring would.
      description: options.description ?? schema.description,
      result: options.result,
      ownTransactions: options.ownTransactions ?? false,
      usesDatabase: options.usesDatabase ?? true,
      startsSession: options.startsSession ?? false,
      roles: options.roles,
      readOnly: options.readOnly ?? false,
    });
    return this;
  }

  /** Registers a document method of `doctype` (`*`: every DocType); see DocMethodRegistry. */
  registerDocMethod(doctype: string, name: string, handler: DocMethodHandler, options: DocMethodOptions = {}): this {
    this.docMethods.register(doctype, name, handler, options);
    return this;
  }

  /**
   * A method of a DocType's controller module by the v2 shorthand `<DocType>/<method>`: the
   * method registered at `<app>.<module>.doctype.<doctype>.<doctype>.<method>` (names in snake
   * case), as `fw.core.doctype.user.user.get_all_roles` for `User/get_all_roles`. When apps
   * register the same tail, the one under the DocType's own module wins.
   */
  resolveControllerMethod(doctype: string, method: string, module: string | undefined): MethodDefinition | undefined {
    const scrubbed = snakeCase(doctype);
    const tail = `.doctype.${scrubbed}.${scrubbed}.${method}`;
    const inModule = module === undefined ? undefined : `.${snakeCase(module)}${tail}`;
    let found: MethodDefinition | undefined;
    for (const [path, definition] of this.#methods) {
      if (!path.endsWith(tail)) continue;
      if (inModule !== undefined && path.endsWith(inModule)) return definition;
      found ??= definition;
    }
    return found;
  }

  /** Counts registrations, so what is derived from the methods (the API description) knows when to rebuild. */
  get revision(): number {
    return this.#revision;
  }

  /** Every registered method, by path. */
  list(): MethodDefinition[] {
    return [...this.#methods.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The method at `path` under either prefix, or undefined. */
  resolve(path: string): MethodDefinition | undefined {
    const direct = this.#methods.get(path);
    if (direct) return direct;
    if (path.startsWith('frappe.')) return this.#methods.get(`fw.${path.slice(7)}`);
    if (path.startsWith('fw.')) return this.#methods.get(`frappe.${path.slice(3)}`);
    return undefined;
  }
}

/** A DocType or module name as its module path spells it: `Has Role` -> `has_role`. */
function snakeCase(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** Checks and coerces call arguments against the declared parameters; undeclared ones pass through. */
export function bindArguments(params: readonly ParamSpec[], args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  for (const p of params) {
    const value = args[p.name];
    if (value === undefined || value === null || value === '') {
      if (p.required) throw new FrappeTypeError(`Missing required argument: ${p.name}`);
      continue;
    }
    out[p.name] = coerce(p, value);
  }
  return out;
}

function coerce(p: ParamSpec, value: unknown): unknown {
  const fail = (): never => {
    throw new FrappeTypeError(`Argument ${p.name} must be ${describe(p.type)}, got ${JSON.stringify(value)?.slice(0, 80)}`);
  };
  switch (p.type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number') return String(value);
      return fail();
    case 'int': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
      return Number.isSafeInteger(n) ? n : fail();
    }
    case 'bool':
      if (value === true || value === 1 || value === '1' || value === 'true' || value === 'True') return true;
      if (value === false || value === 0 || value === '0' || value === 'false' || value === 'False') return false;
      return fail();
    case 'json':
    case 'object':
    case 'list': {
      let v = value;
      if (typeof v === 'string') {
        try {
          v = JSON.parse(v);
        } catch {
          if (p.type === 'json') return value;
          return fail();
        }
      }
      if (p.type === 'object' && (v === null || typeof v !== 'object' || Array.isArray(v))) return fail();
      if (p.type === 'list' && !Array.isArray(v)) return fail();
      return v;
    }
    default:
      return value;
  }
}

function describe(type: ParamType): string {
  return { string: 'a string', int: 'an integer', bool: 'a boolean', json: 'JSON', object: 'an object', list: 'a list', any: 'a value' }[type];
}
