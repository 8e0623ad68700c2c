// What the subsystems part of `npm run bench` configures on its fw servers, over HTTP as the
// Administrator (bench/subsystems-bench.ts, docs/benchmarks.md "What a subsystem costs").
import { BENCH_USER } from './fw-auth.js';

/** The DocType every measured write goes to, on both servers. */
export const NOTE = 'Bench Note';
/** The same DocType with its title in global search (the "one matching search index" case). */
export const SEARCHED_NOTE = 'Bench Searched Note';
/** Where the configured server's subsystems point: never written by a measured request. */
export const OTHER = 'Bench Other';
/** The Notification and Workflow on NOTE that the "one matching" slices switch on and off. */
export const NOTE_NOTIFICATION = 'Bench note new';
export const NOTE_WORKFLOW = 'Bench note flow';

/** An Administrator's session on one server. */
export interface AdminClient {
  call(method: 'GET' | 'POST' | 'PUT', path: string, body?: object): Promise<Record<string, any>>;
}

/** Logs in as the Administrator; each call sends the session cookie and throws unless it answers 200. */
export async function adminClient(origin: string, password: string): Promise<AdminClient> {
  const login = await fetch(`${origin}/api/method/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ usr: 'Administrator', pwd: password }),
  });
  const sid = login.headers
    .getSetCookie()
    .map((c) => /^sid=([^;]*)/.exec(c)?.[1])
    .find((v) => v);
  if (login.status !== 200 || !sid) throw new Error(`Administrator login answered ${login.status}`);
  return {
    async call(method, path, body) {
      const res = await fetch(origin + path, {
        method,
        headers: { 'content-type': 'application/json', cookie: `sid=${sid}` },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 400)}`);
      return JSON.parse(text) as Record<string, any>;
    },
  };
}

/** A DocType the bench user (role All) may read, write and create, with a workflow state field. */
function noteDocType(name: string, searched: boolean): object {
  return {
    name,
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data', in_global_search: searched ? 1 : 0 },
      { fieldname: 'notes', label: 'Notes', fieldtype: 'Small Text' },
      { fieldname: 'workflow_state', label: 'Workflow State', fieldtype: 'Link', options: 'Workflow State' },
    ],
    permissions: [
      { role: 'System Manager', read: 1, write: 1, create: 1, delete: 1 },
      { role: 'All', read: 1, write: 1, create: 1 },
    ],
  };
}

const workflow = (name: string, doctype: string, active: 0 | 1) => ({
  workflow_name: name,
  document_type: doctype,
  workflow_state_field: 'workflow_state',
  is_active: active,
  states: [
    { state: 'Draft', doc_status: '0', allow_edit: 'All' },
    { state: 'Approved', doc_status: '0', allow_edit: 'System Manager' },
  ],
  transitions: [{ state: 'Draft', action: 'Approve', next_state: 'Approved', allowed: 'System Manager' }],
});

const notification = (name: string, doctype: string, enabled: 0 | 1) => ({
  name,
  document_type: doctype,
  event: 'New',
  channel: 'Email',
  enabled,
  subject: 'New note: {{ doc.title }}',
  message: '<p>{{ doc.title }} was written: {{ doc.notes }}</p>',
  recipients: [{ receiver_by_role: 'System Manager' }, { cc: 'watcher@example.com' }],
});

/** Both servers: the measured DocType. */
export async function setUpPlain(admin: AdminClient): Promise<void> {
  await admin.call('POST', '/api/resource/DocType', noteDocType(NOTE, false));
}

/**
 * The configured server: an Email Account and an Email Notification, global search, a Workflow and
 * an open assignment, all on OTHER (fw has no Assignment Rule DocType: an assignment is the ToDo that
 * assign_to makes); S3 storage comes from site_config.json. Besides, switched off until a "one
 * matching" slice switches one on: a Notification and a Workflow on NOTE, and SEARCHED_NOTE.
 */
export async function setUpConfigured(admin: AdminClient, smtpPort: number): Promise<void> {
  await admin.call('POST', '/api/resource/DocType', noteDocType(OTHER, true));
  await admin.call('POST', '/api/resource/DocType', noteDocType(SEARCHED_NOTE, true));
  await admin.call('POST', '/api/resource/Email Account', {
    email_account_name: 'Bench outgoing',
    email_id: 'robot@example.com',
    enable_outgoing: 1,
    default_outgoing: 1,
    smtp_server: '127.0.0.1',
    smtp_port: smtpPort,
    no_smtp_authentication: 1,
  });
  await admin.call('POST', '/api/resource/Notification', notification('Bench other new', OTHER, 1));
  await admin.call('POST', '/api/resource/Workflow', workflow('Bench other flow', OTHER, 1));
  const other = await admin.call('POST', `/api/resource/${encodeURIComponent(OTHER)}`, { title: 'assigned other', notes: 'x' });
  await admin.call('POST', '/api/method/frappe.desk.form.assign_to.add', {
    doctype: OTHER,
    name: other.data.name,
    assign_to: JSON.stringify([BENCH_USER]),
  });
  await admin.call('POST', '/api/resource/Notification', notification(NOTE_NOTIFICATION, NOTE, 0));
  await admin.call('POST', '/api/resource/Workflow', workflow(NOTE_WORKFLOW, NOTE, 0));
}

/** Switches the Notification or the Workflow on NOTE on or off. */
export async function toggle(admin: AdminClient, what: 'notification' | 'workflow', on: boolean): Promise<void> {
  if (what === 'notification') await admin.call('PUT', `/api/resource/Notification/${encodeURIComponent(NOTE_NOTIFICATION)}`, { enabled: on ? 1 : 0 });
  else await admin.call('PUT', `/api/resource/Workflow/${encodeURIComponent(NOTE_WORKFLOW)}`, { is_active: on ? 1 : 0 });
}
