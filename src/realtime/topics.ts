import type { Principal } from '../auth/principal.js';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { loadSingle } from '../documents/singles/single-document.js';
import type { ReadUnits } from './realtime-site.js';

/** What a client may subscribe to beyond its own rooms. */
export type Topic =
  | { readonly kind: 'doctype'; readonly doctype: string }
  | { readonly kind: 'doc'; readonly doctype: string; readonly name: string }
  | { readonly kind: 'open_doc'; readonly doctype: string; readonly name: string }
  | { readonly kind: 'task'; readonly taskId: string };

const MAX_DOCTYPE = 140;
const MAX_NAME = 1000;
const TASK_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

function isName(value: unknown, max: number): value is string {
  return typeof value === 'string' && value !== '' && value.length <= max && !value.includes('\u0000');
}

/** A doctype topic from client input; undefined for anything malformed (ignored, like a refusal). */
export function doctypeTopic(doctype: unknown): Topic | undefined {
  return isName(doctype, MAX_DOCTYPE) ? { kind: 'doctype', doctype } : undefined;
}

/** A document topic (`doc` or `open_doc`) from client input. */
export function docTopic(kind: 'doc' | 'open_doc', doctype: unknown, name: unknown): Topic | undefined {
  if (!isName(doctype, MAX_DOCTYPE)) return undefined;
  if (typeof name === 'number' && Number.isFinite(name)) name = String(name);
  return isName(name, MAX_NAME) ? { kind, doctype, name } : undefined;
}

/** A task topic; the task id is the secret that lets a client follow it, as in the reference. */
export function taskTopic(taskId: unknown): Topic | undefined {
  return typeof taskId === 'string' && TASK_ID.test(taskId) ? { kind: 'task', taskId } : undefined;
}

/** The room of a topic, named as the reference names it. */
export function roomOf(topic: Topic): string {
  switch (topic.kind) {
    case 'doctype':
      return `doctype:${topic.doctype}`;
    case 'doc':
      return `doc:${topic.doctype}/${topic.name}`;
    case 'open_doc':
      return `open_doc:${topic.doctype}/${topic.name}`;
    case 'task':
      return `task_progress:${topic.taskId}`;
  }
}

/** The topic a room was joined for; undefined for the rooms a client is given (user, website, all). DocType names hold no `/`. */
export function topicOfRoom(room: string): Topic | undefined {
  const colon = room.indexOf(':');
  const kind = room.slice(0, colon);
  const rest = room.slice(colon + 1);
  if (kind === 'doctype') return doctypeTopic(rest);
  if (kind === 'task_progress') return taskTopic(rest);
  if (kind !== 'doc' && kind !== 'open_doc') return undefined;
  const slash = rest.indexOf('/');
  return slash > 0 ? docTopic(kind, rest.slice(0, slash), rest.slice(slash + 1)) : undefined;
}

/**
 * Read permission as a GET would judge it: on the DocType (roles, if_owner, shares) when `name` is
 * undefined, else on that document (which must exist). Child DocTypes are never readable alone.
 */
export async function mayRead(ctx: DocContext, documents: DocumentService, doctype: string, name: string | undefined): Promise<boolean> {
  if (!ctx.metas.has(doctype)) return false;
  const meta = ctx.metas.get(doctype);
  if (meta.isChild) return false;
  if (name === undefined) return documents.can(ctx, meta, 'read');
  if (!(await documents.can(ctx, meta, 'read'))) return false;
  const doc = meta.isSingle ? (name === meta.name ? await loadSingle(ctx, meta) : undefined) : await documents.repo(ctx).load(ctx.q, meta, name);
  return doc !== undefined && (await documents.can(ctx, meta, 'read', doc));
}

/** Whether `principal` may join the room of `topic`. */
export function mayJoin(site: ReadUnits, principal: Principal, topic: Topic): Promise<boolean> {
  if (topic.kind === 'task') return Promise.resolve(true);
  const name = topic.kind === 'doctype' ? undefined : topic.name;
  return site.read(principal, (ctx) => mayRead(ctx, site.documents, topic.doctype, name));
}
