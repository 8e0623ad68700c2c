import type { MethodRegistry } from '../method-registry.js';
import { registerClientBulkMethods } from './client-bulk-methods.js';
import { registerClientDocMethods } from './client-doc-methods.js';
import { registerClientReadMethods } from './client-read-methods.js';
import { registerClientWriteMethods } from './client-write-methods.js';

/** Every built-in `fw.client` method, and `run_doc_method`. */
export function registerClientMethods(methods: MethodRegistry): void {
  registerClientReadMethods(methods);
  registerClientWriteMethods(methods);
  registerClientBulkMethods(methods);
  registerClientDocMethods(methods);
}
