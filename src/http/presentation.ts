import type { Doc } from '../meta/doctype.js';
import { omitNulls } from '../documents/omit-nulls.js';
import type { UserMessages } from '../documents/user-messages.js';

/**
 * The API surface a request came through, and so the conventions of its answer (docs/api.md
 * "API v2"): v1 bodies drop null fields and carry `_server_messages`; v2 bodies keep nulls and
 * carry `messages`. Only `http/` knows the versions; the model below it answers documents.
 */
export type ApiVersion = 'v1' | 'v2';

/** The document as a client of `version` sees it; child rows get the same treatment. */
export function presentDoc(doc: Doc, version: ApiVersion): Doc {
  return version === 'v2' ? doc : omitNulls(doc);
}

/**
 * The messages as a response carries them: v1 `_server_messages` is a JSON text of a list of JSON
 * texts, one per message; v2 `messages` is the list of objects. Nothing when there is none.
 */
export function messagesBody(messages: UserMessages | undefined, version: ApiVersion): Record<string, unknown> {
  const list = messages?.all ?? [];
  if (list.length === 0) return {};
  if (version === 'v2') return { messages: list.map((m) => ({ ...m })) };
  return { _server_messages: JSON.stringify(list.map((m) => JSON.stringify(m))) };
}
