import type { MethodRegistry } from '../method-registry.js';
import { registerAuthMethods } from './auth-methods.js';
import { registerClientMethods } from './client-methods.js';
import { registerDeskMethods } from './desk-methods.js';
import { registerDeletedDocumentMethods } from './deleted-document-methods.js';
import { registerDocstatusMethods } from './docstatus-methods.js';
import { registerFileMethods } from './file-methods.js';
import { registerHealthMethods } from './health-methods.js';
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
  registerDeskMethods(methods);
}
