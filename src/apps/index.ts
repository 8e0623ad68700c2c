/*
 * The public surface for app authors: every type an app's code touches, from one module. Apps take
 * fw's values (error classes, services) from the `AppApi` they are given, never by importing them,
 * so only types are exported here.
 */
export type { App, AppApi, AppHooks, AppMethods, AppPermissions, ListParams } from './app.js';
export type { Principal } from '../auth/principal.js';
export type { DocContext, DocSettings } from '../documents/doc-context.js';
export type { DocumentService, InsertOptions } from '../documents/document-service.js';
export type { DocEvent, DocHook, HookArgs } from '../documents/hooks.js';
export type { Doc, DocField, DocPerm, DocTypeDef, PermissionType } from '../meta/doctype.js';
export type { Meta } from '../meta/meta.js';
export type { HasPermissionHook, PermissionQueryHook } from './app.js';
import type { DocContext } from '../documents/doc-context.js';
import type { HasPermissionArgs as AnyHasPermissionArgs, QueryConditionArgs as AnyQueryConditionArgs } from '../permissions/permission-hooks.js';
/** What an app's `has_permission` hook is asked. */
export type HasPermissionArgs = AnyHasPermissionArgs<DocContext>;
/** What an app's `permission_query_conditions` hook is asked. */
export type QueryConditionArgs = AnyQueryConditionArgs<DocContext>;
export type { Condition, FieldRef, Operator } from '../query/list-query.js';
export type { DocMethodCall, DocMethodHandler, DocMethodOptions } from '../rpc/doc-methods.js';
export type {
  HttpExchange,
  HttpVerb,
  MethodCall,
  MethodHandler,
  MethodOptions,
  MethodServices,
  ParamSpec,
  ParamType,
} from '../rpc/method-registry.js';
