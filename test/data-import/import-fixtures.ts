import assert from 'node:assert/strict';
import { createDocType, dataOf, type Json } from '../helpers/document-api.js';
import { fileOf, uploadFile, type Sender } from '../helpers/file-api.js';
import { callMethod, messageOf } from '../helpers/method-calls.js';
import type { TestSite } from '../helpers/test-site.js';

/** The child table of the fixture: one line of an order. */
export const LINE = 'Imp Line';
/** The fixture DocType: required title, a Select, dates, a Check, a number and a child table. */
export const ORDER = 'Imp Order';
/** Both module paths the methods answer under. */
export const MODULE = 'frappe.core.doctype.data_import.data_import';
export const API_MODULE = 'frappe.core.api.data_import_export';

/** Creates the fixture DocTypes through the API. */
export async function createImportFixtures(t: TestSite): Promise<void> {
  await createDocType(t, {
    name: LINE,
    istable: 1,
    fields: [
      { fieldname: 'item', label: 'Item', fieldtype: 'Data', reqd: 1 },
      { fieldname: 'qty', label: 'Qty', fieldtype: 'Int' },
      { fieldname: 'delivery', label: 'Delivery', fieldtype: 'Date' },
    ],
  });
  await createDocType(t, {
    name: ORDER,
    fields: [
      { fieldname: 'title', label: 'Title', fieldtype: 'Data', reqd: 1 },
      { fieldname: 'status', label: 'Status', fieldtype: 'Select', options: 'Open\nClosed' },
      { fieldname: 'due', label: 'Due', fieldtype: 'Date' },
      { fieldname: 'active', label: 'Active', fieldtype: 'Check' },
      { fieldname: 'amount', label: 'Amount', fieldtype: 'Float' },
      { fieldname: 'lines', label: 'Lines', fieldtype: 'Table', options: LINE },
    ],
  });
}

/** Uploads a private file as `sender` and answers its file_url. */
export async function uploadImportFile(t: TestSite, name: string, content: string | Buffer, sender: Sender = 'admin'): Promise<string> {
  return String(fileOf(await uploadFile(t, name, content, { is_private: '1' }, sender)).file_url);
}

/** Creates a Data Import through the resource API (as the Administrator unless `auth` is given). */
export async function createDataImport(t: TestSite, body: Json, auth?: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/api/resource/Data Import',
    body: { import_type: 'Insert New Records', ...body },
    headers: auth ? { authorization: auth } : undefined,
  });
  return String(dataOf(res).name);
}

/** get_import_status's answer. */
export async function importStatus(t: TestSite, name: string): Promise<Json> {
  return messageOf(await callMethod(t, 'GET', `${MODULE}.get_import_status`, { data_import_name: name }));
}

/** The stored titles of the fixture's documents, sorted. */
export async function storedTitles(t: TestSite): Promise<string[]> {
  const res = await t.request({ method: 'GET', url: `/api/resource/${ORDER}?fields=["title"]&limit_page_length=0` });
  return (dataOf(res) as unknown as { title: string }[]).map((r) => r.title).sort();
}

/** The preview of a Data Import. */
export async function preview(t: TestSite, name: string): Promise<Json> {
  const res = await callMethod(t, 'POST', `${MODULE}.get_preview_from_template`, { data_import: name });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().message as Json;
}
