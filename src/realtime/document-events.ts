import type { CommittedDocEvent, HookRegistry } from '../documents/hooks.js';
import type { MetaRegistry } from '../meta/meta-registry.js';
import type { RealtimePublisher } from './realtime-publisher.js';

/** What happened to the document, beyond the reference's payload: lists can add and drop rows without a refetch. */
type Action = 'insert' | 'update' | 'delete' | 'rename';

/**
 * Publishes `doc_update` to `doc:<dt>/<name>` and `list_update` to `doctype:<dt>` for every
 * committed insert, save, submit, cancel, discard, rename and delete (docs/realtime.md, "Events").
 * Child DocTypes get neither (their parent's save reports them); Single DocTypes get no
 * `list_update`, as in the reference. Both events reach only readers of the document. Heard
 * through the after-commit seam, so a rolled-back write publishes nothing.
 */
export function registerDocumentEvents(hooks: HookRegistry, metas: MetaRegistry, publisher: RealtimePublisher): void {
  const publish = (e: CommittedDocEvent, action: Action) => {
    if (!metas.has(e.doctype)) return;
    const meta = metas.get(e.doctype);
    if (meta.isChild) return;
    const name = e.name;
    const oldName = action === 'rename' ? e.oldName : undefined;
    // A deleted document can no longer be read: its last state decides who may hear of it.
    const readableBy = { doctype: e.doctype, name, ...(action === 'delete' ? { doc: e.doc } : {}) };
    const modified = e.doc.modified ?? null;
    publisher.enqueue({
      kind: 'event',
      event: 'doc_update',
      room: `doc:${e.doctype}/${oldName ?? name}`,
      message: { doctype: e.doctype, name: oldName ?? name, modified, action, ...(oldName ? { new_name: name } : {}) },
      readableBy,
    });
    // The reference also skips DocTypes flagged read_only; fw's definitions have no such flag.
    if (meta.isSingle) return;
    publisher.enqueue({
      kind: 'event',
      event: 'list_update',
      room: `doctype:${e.doctype}`,
      message: { doctype: e.doctype, name, user: e.user, action, ...(oldName ? { old_name: oldName } : {}) },
      readableBy,
    });
  };
  hooks.onCommitted('*', 'on_change', (e) => publish(e, e.before === undefined ? 'insert' : 'update'));
  hooks.onCommitted('*', 'after_delete', (e) => publish(e, 'delete'));
  hooks.onCommitted('*', 'after_rename', (e) => publish(e, 'rename'));
}
