import type { MethodRegistry } from '../method-registry.js';
import { registerAuthMethods } from './auth-methods.js';
import { registerClientMethods } from './client-methods.js';
import { registerCommentMethods } from './comment-methods.js';
import { registerDeskMethods } from './desk-methods.js';
import { registerDeletedDocumentMethods } from './deleted-document-methods.js';
import { registerDeskReportviewMethods } from './desk-reportview-methods.js';
import { registerDeskSearchMethods } from './desk-search-methods.js';
import { registerDocstatusMethods } from './docstatus-methods.js';
import { registerFileMethods } from './file-methods.js';
import { registerFormLoadMethods } from './form-load-methods.js';
import { registerHealthMethods } from './health-methods.js';
import { registerLinkMethods } from './link-methods.js';
import { registerRealtimeMethods } from './realtime-methods.js';
import { registerUserMethods } from './user-methods.js';

/** Registers every built-in method; apps register theirs through the same registry. */
export function registerBuiltinMethods(methods: MethodRegistry): void {
  registerAuthMethods(methods);
  registerUserMethods(methods);
  registerClientMethods(methods);
  registerDocstatusMethods(methods);
  registerFileMethods(methods);
  registerDeletedDocumentMethods(methods);
  registerHealthMethods(methods);
  registerLinkMethods(methods);
  registerCommentMethods(methods);
  registerDeskSearchMethods(methods);
  registerDeskReportviewMethods(methods);
  registerFormLoadMethods(methods);
  registerRealtimeMethods(methods);
  registerDeskMethods(methods);
}
