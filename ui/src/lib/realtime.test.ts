import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatch, onDocUpdate, onListUpdate, useTransport, type DocUpdate } from './realtime';

describe('realtime listeners', () => {
  test('hands each event only to the views that asked for that DocType or document, until they unsubscribe', () => {
    const seen: string[] = [];
    const offList = onListUpdate('Note', (e) => seen.push(`list ${e.name}`));
    const offDoc = onDocUpdate('Note', 'N-1', (e) => seen.push(`doc ${e.name}`));
    dispatch('list_update', { doctype: 'Note', name: 'N-2' });
    dispatch('list_update', { doctype: 'Task', name: 'T-1' });
    dispatch('doc_update', { doctype: 'Note', name: 'N-1' });
    dispatch('doc_update', { doctype: 'Note', name: 'N-9' });
    offList();
    offDoc();
    dispatch('list_update', { doctype: 'Note', name: 'N-3' });
    dispatch('doc_update', { doctype: 'Note', name: 'N-1' });
    assert.deepEqual(seen, ['list N-2', 'doc N-1']);
  });

  test('joins the rooms of existing listeners when the transport arrives, and of new ones after', () => {
    const rooms: string[] = [];
    const offEarly = onListUpdate('Early', () => {});
    useTransport({
      subscribeList: (doctype) => rooms.push(`doctype:${doctype}`),
      subscribeDoc: (doctype, name) => rooms.push(`doc:${doctype}/${name}`),
      unsubscribeDoc: (doctype, name) => rooms.push(`leave doc:${doctype}/${name}`),
    });
    const offDoc = onDocUpdate('Late', 'L-1', (_e: DocUpdate) => {});
    offDoc();
    offEarly();
    assert.deepEqual(rooms, ['doctype:Early', 'doc:Late/L-1', 'leave doc:Late/L-1']);
  });
});
