import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { HookArgs } from '../documents/hooks.js';
import { omitNulls } from '../documents/omit-nulls.js';
import { FrappeTypeError, PermissionError, ValidationError } from '../errors/index.js';
import type { Doc } from '../meta/doctype.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import type { CollaborationParts } from './collaboration-parts.js';
import { principalOf, readableTarget, updateColumn } from './document-columns.js';

/*
 * Assignments (docs/collaboration.md "Assignments"): one open ToDo per assignee of a document, its
 * `_assign` column kept in step with the open ToDos however they change (these methods or the ToDo
 * resource), and only to users who may read the document.
 */

/** ToDo statuses that no longer count as an assignment. */
const FINISHED = ['Cancelled', 'Closed'];

interface OpenAssignment {
  readonly name: string;
  readonly allocated_to: string;
}

/** The open ToDos of a document, oldest first. */
async function openAssignments(ctx: DocContext, doctype: string, name: string): Promise<OpenAssignment[]> {
  return ctx.q.all<OpenAssignment>(
    ctx.dialect.builder
      .selectFrom('tabToDo')
      .select(['name', 'allocated_to'])
      .where('reference_type', '=', doctype)
      .where('reference_name', '=', name)
      .where('status', 'not in', FINISHED)
      .where('allocated_to', 'is not', null)
      .orderBy('creation')
      .orderBy('name')
      .compile(),
  );
}

/** Writes the document's `_assign` (JSON list of its open assignees), when the document keeps one. */
async function syncAssignColumn(ctx: DocContext, documents: DocumentService, doctype: unknown, name: unknown): Promise<void> {
  if (typeof doctype !== 'string' || typeof name !== 'string' || !ctx.metas.has(doctype)) return;
  const meta = ctx.metas.get(doctype);
  if (meta.collaborationColumns.length === 0) return;
  const users = [...new Set((await openAssignments(ctx, doctype, name)).map((a) => a.allocated_to))];
  await updateColumn(ctx, documents, meta, name, '_assign', () => JSON.stringify(users));
}

/** The reference's answer of add, remove, close and get: the open assignments as `{owner, name}`. */
async function assignmentList(ctx: DocContext, doctype: string, name: string): Promise<{ owner: string; name: string }[]> {
  return (await openAssignments(ctx, doctype, name)).map((a) => ({ owner: a.allocated_to, name: a.name }));
}

/** `assign_to` as a list of users: a JSON list (text or native) or one user. */
function userList(raw: unknown): string[] {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
  }
  const list = Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];
  if (!list.every((u) => typeof u === 'string' && u.trim() !== '')) throw new FrappeTypeError('assign_to must be a user or a list of users');
  return [...new Set((list as string[]).map((u) => u.trim()))];
}

/** The method's arguments, top-level or inside `args` (the reference reads either). */
function argsOf(call: MethodCall): Readonly<Record<string, unknown>> {
  const inner = call.args.args;
  return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? { ...(inner as Record<string, unknown>), ...call.args } : call.args;
}

function requiredText(args: Readonly<Record<string, unknown>>, key: string): string {
  const v = args[key];
  if ((typeof v !== 'string' || v === '') && typeof v !== 'number') throw new FrappeTypeError(`Missing argument ${key}`);
  return String(v);
}

/**
 * `fw.desk.form.assign_to.add`: assigns the document to each user of `assign_to` (or the caller with
 * `assign_to_me`): a ToDo each, written without the caller needing rights on ToDo. Every assignee
 * must be an enabled user who may read the document, else nothing is assigned (403). A user already
 * assigned is left as is and named in a message.
 */
async function add(call: MethodCall, parts: CollaborationParts): Promise<unknown> {
  const { ctx } = call;
  const args = argsOf(call);
  const doctype = requiredText(args, 'doctype');
  const name = requiredText(args, 'name');
  const { meta, doc } = await readableTarget(ctx, parts.documents, doctype, name);
  const assignToMe = args.assign_to_me === true || args.assign_to_me === 1 || args.assign_to_me === '1' || args.assign_to_me === 'true';
  const users = assignToMe ? [ctx.principal.user] : userList(args.assign_to);
  if (users.length === 0) throw new FrappeTypeError('assign_to must name at least one user');
  const stored = (await parts.documents.load(ctx, doctype, name)) as Doc;
  for (const user of users) {
    const principal = await principalOf(ctx, user);
    if (!principal) throw new ValidationError(`User ${user} does not exist or is disabled`, { doctype: 'User' });
    if (!(await parts.documents.can({ ...ctx, principal }, meta, 'read', stored))) {
      throw new PermissionError('Not permitted', {
        doctype,
        messages: [{ message: `Cannot assign ${doctype} ${name} to ${user}: they may not read it`, title: 'Not permitted' }],
      });
    }
  }
  const already = new Set((await openAssignments(ctx, doctype, name)).map((a) => a.allocated_to));
  const skipped = users.filter((u) => already.has(u));
  if (skipped.length > 0)
    ctx.messages.add({ message: `Already in the following Users ToDo list: ${skipped.join(', ')}`, title: 'Already assigned', indicator: 'orange' });
  const description = typeof args.description === 'string' && args.description !== '' ? args.description : `${doctype} ${String(doc.name)}`;
  for (const user of users.filter((u) => !already.has(u))) {
    await parts.documents.insert(
      ctx,
      'ToDo',
      {
        allocated_to: user,
        reference_type: doctype,
        reference_name: name,
        description,
        priority: typeof args.priority === 'string' && args.priority !== '' ? args.priority : 'Medium',
        ...(typeof args.date === 'string' && args.date !== '' ? { date: args.date } : {}),
        assigned_by: ctx.principal.user,
        status: 'Open',
      },
      { ignorePermissions: true },
    );
    await parts.notify?.(ctx, { kind: 'assigned', forUser: user, fromUser: ctx.principal.user, doctype, name, description });
  }
  return assignmentList(ctx, doctype, name);
}

/**
 * `remove` (status Cancelled) and `close` (status Closed): ends `assign_to`'s open assignment of the
 * document through the ToDo service, so only who may write that ToDo (the assignee, who assigned
 * it, a System Manager) may end it; answers the open assignments left.
 */
async function finish(call: MethodCall, parts: CollaborationParts, status: 'Cancelled' | 'Closed'): Promise<unknown> {
  const { ctx } = call;
  const args = argsOf(call);
  const doctype = requiredText(args, 'doctype');
  const name = requiredText(args, 'name');
  const user = requiredText(args, 'assign_to');
  await readableTarget(ctx, parts.documents, doctype, name);
  for (const todo of (await openAssignments(ctx, doctype, name)).filter((a) => a.allocated_to === user)) {
    await parts.documents.update(ctx, 'ToDo', todo.name, { status });
    const kind = status === 'Closed' ? 'assignment_closed' : 'assignment_cancelled';
    if (user !== ctx.principal.user) await parts.notify?.(ctx, { kind, forUser: user, fromUser: ctx.principal.user, doctype, name });
  }
  return assignmentList(ctx, doctype, name);
}

/** `fw.desk.form.assign_to.get`: the open assignments of a document the caller may read. */
async function get(call: MethodCall, parts: CollaborationParts): Promise<unknown> {
  const args = argsOf(call);
  const doctype = requiredText(args, 'doctype');
  const name = requiredText(args, 'name');
  await parts.documents.get(call.ctx, doctype, name);
  return assignmentList(call.ctx, doctype, name);
}

/** The open assignments of a document for its docinfo: `{name, owner, description, status}`. */
export async function docinfoAssignments(ctx: DocContext, doctype: string, name: string): Promise<Doc[]> {
  const rows = await ctx.q.all<Doc>(
    ctx.dialect.builder
      .selectFrom('tabToDo')
      .select(['name', 'allocated_to', 'description', 'status'])
      .where('reference_type', '=', doctype)
      .where('reference_name', '=', name)
      .where('status', 'not in', FINISHED)
      .orderBy('creation')
      .compile(),
  );
  return rows.map((r) => omitNulls({ name: r.name, owner: r.allocated_to, description: r.description, status: r.status }));
}

/** Keeps `_assign` in step with every ToDo change, and registers the methods. */
export function registerAssignments(parts: CollaborationParts): void {
  const sync = async ({ doc, before, ctx }: HookArgs) => {
    await syncAssignColumn(ctx, parts.documents, doc.reference_type, doc.reference_name);
    // A ToDo moved to another document leaves the first one's list too.
    if (before && (before.reference_type !== doc.reference_type || before.reference_name !== doc.reference_name)) {
      await syncAssignColumn(ctx, parts.documents, before.reference_type, before.reference_name);
    }
  };
  parts.hooks.on('ToDo', 'on_change', async (args, next) => {
    await next();
    await sync(args);
  });
  parts.hooks.on('ToDo', 'after_delete', async (args, next) => {
    await next();
    await syncAssignColumn(args.ctx, parts.documents, args.doc.reference_type, args.doc.reference_name);
  });
  const methods: MethodRegistry = parts.methods;
  const common = [
    { name: 'doctype', type: 'string' as const },
    { name: 'name', type: 'string' as const },
    { name: 'args', type: 'object' as const },
  ];
  methods.register('fw.desk.form.assign_to.add', (call) => add(call, parts), {
    methods: ['POST', 'PUT'],
    description: 'Assigns a document to users (a ToDo each); answers the open assignments.',
    params: [
      ...common,
      { name: 'assign_to', type: 'json' },
      { name: 'assign_to_me', type: 'any' },
      { name: 'description', type: 'string' },
      { name: 'priority', type: 'string' },
      { name: 'date', type: 'string' },
    ],
  });
  methods.register('fw.desk.form.assign_to.remove', (call) => finish(call, parts, 'Cancelled'), {
    methods: ['POST', 'PUT', 'DELETE'],
    description: "Cancels a user's assignment of a document; answers the open assignments.",
    params: [...common, { name: 'assign_to', type: 'string' }],
  });
  methods.register('fw.desk.form.assign_to.close', (call) => finish(call, parts, 'Closed'), {
    methods: ['POST', 'PUT'],
    description: "Closes a user's assignment of a document; answers the open assignments.",
    params: [...common, { name: 'assign_to', type: 'string' }],
  });
  methods.register('fw.desk.form.assign_to.get', (call) => get(call, parts), {
    description: 'The open assignments of a document.',
    params: common,
  });
}
