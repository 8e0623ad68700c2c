import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { browserSkipReason, launchBrowser, listen, login, newContext } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The workflow on a form, in a real browser (docs/workflows.md): the state and the actions the user
 * may take replace the plain Submit, and an action moves the document (here into a submitting
 * state). The site runs on the first engine of the matrix; the API is tested on both.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI workflow browser tests skipped: ${skip}`);
const dialect = testDialects()[0];

describe(`admin UI: workflow actions (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  before(async () => {
    t = await startTestSite(dialect);
    const base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: 'UI Leave',
          module: 'People',
          is_submittable: 1,
          fields: [
            { fieldname: 'title', label: 'Title', fieldtype: 'Data', in_list_view: 1 },
            { fieldname: 'workflow_state', label: 'Workflow State', fieldtype: 'Link', options: 'Workflow State', allow_on_submit: 1, read_only: 1 },
          ],
          permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1, delete: 1, submit: 1, cancel: 1 }],
        },
      }),
    );
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/Workflow',
        body: {
          workflow_name: 'UI Leave Flow',
          document_type: 'UI Leave',
          is_active: 1,
          states: [
            { state: 'Draft', doc_status: '0', allow_edit: 'System Manager' },
            { state: 'Pending', doc_status: '0', allow_edit: 'System Manager' },
            { state: 'Approved', doc_status: '1', allow_edit: 'System Manager' },
          ],
          transitions: [
            { state: 'Draft', action: 'Send for Approval', next_state: 'Pending', allowed: 'System Manager' },
            { state: 'Pending', action: 'Approve', next_state: 'Approved', allowed: 'System Manager' },
          ],
        },
      }),
    );
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the form shows the state and the allowed actions instead of Submit, and an action moves the document', async () => {
    const leave = dataOf(await t.request({ method: 'POST', url: '/api/resource/UI Leave', body: { title: 'Summer' } }));
    await page.goto(`/app/ui-leave/${encodeURIComponent(String(leave.name))}`);
    const bar = page.getByRole('region', { name: 'Workflow' });
    await bar.locator('[data-workflow-state]', { hasText: 'Draft' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Submit', exact: true }).count(), 0, 'the plain Submit is not offered');
    await bar.getByRole('button', { name: 'Send for Approval' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Send for Approval' }).click();
    await bar.locator('[data-workflow-state]', { hasText: 'Pending' }).waitFor();
    await bar.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await page.locator('.page-head .badge', { hasText: 'Submitted' }).waitFor();
    const stored = dataOf(await t.request({ method: 'GET', url: `/api/resource/UI Leave/${leave.name}` }));
    assert.equal(stored.workflow_state, 'Approved');
    assert.equal(stored.docstatus, 1);
    assert.equal(await page.getByRole('button', { name: 'Cancel', exact: true }).count(), 0, 'the plain Cancel is not offered');
    assert.deepEqual(problems, []);
  });

  test('a Workflow opens in the generic form with its states and transitions as editable tables', async () => {
    await page.goto(`/app/workflow/${encodeURIComponent('UI Leave Flow')}`);
    const transitions = page.getByRole('group', { name: 'Transitions' });
    assert.equal(await transitions.getByLabel('Action row 2').inputValue(), 'Approve');
    assert.equal(await transitions.getByLabel('Next State row 2').inputValue(), 'Approved');
    const states = page.getByRole('group', { name: 'Document States' });
    assert.equal(await states.getByLabel('State row 3').inputValue(), 'Approved');
    await states.getByLabel('Only Allow Edit For row 1').waitFor();
    assert.deepEqual(problems, []);
  });
});
