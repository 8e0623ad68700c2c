import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startSiteWorker, type RunningJobs } from '../../src/site/site-jobs.js';
import { testDialects } from '../helpers/dialects.js';
import { storedCount } from '../helpers/document-api.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';
import { createImportFixtures, ORDER } from '../data-import/import-fixtures.js';

/*
 * The Data Import tool in a real browser, as a System Manager: from a list to the tool, upload a
 * file, read the preview's warnings, start, watch it finish and find the failed rows' file. The
 * import API under it is tested on both engines by test/data-import.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];

const CSV =
  'Title,Status,Due,Item (Lines),Qty (Lines)\n' +
  'Browser order,Open,31-01-2024,apple,2\n' +
  ',,,pear,3\n' +
  'Bad status,Maybe,01-01-2024,fig,1\n' +
  'Second,Closed,2024-03-15,kiwi,4\n';

describe(`admin UI: Data Import (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let jobs: RunningJobs;

  before(async () => {
    t = await startTestSite(dialect);
    await createImportFixtures(t);
    jobs = startSiteWorker(t.site, { pollMs: 200 });
    const base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(30_000);
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await jobs?.stop();
    await t?.close();
  });

  test('from the list: upload, preview with warnings, start, progress to Partial Success, failed rows offered', async () => {
    await page.goto('/app/imp-order');
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Data Import' }).waitFor();
    await urlMatches(page, /\/app\/data-import-tool\?doctype=Imp(\+| )Order$/);
    assert.equal(await page.getByLabel('DocType', { exact: true }).inputValue(), ORDER);
    const template = page.getByRole('link', { name: 'CSV' });
    assert.match(String(await template.getAttribute('href')), /download_template\?doctype=Imp\+Order&export_records=blank_template&file_type=CSV/);

    await page.locator('#di-file').setInputFiles({ name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await page.getByText('4 rows, 3 documents, 1 warnings').waitFor();
    await page
      .getByRole('list', { name: 'Warnings' })
      .getByText(/^Row 4: .*Maybe/)
      .waitFor();
    await page.getByRole('cell', { name: 'Browser order' }).waitFor();
    assert.equal(await storedCount(t, ORDER), 0, 'the preview stored nothing');
    await screenshot(page, 'import-01-preview');
    const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious, []);

    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByText('Partial Success: 2 imported, 1 failed of 3').waitFor();
    const failed = page.getByRole('link', { name: 'Download the rows that failed' });
    assert.match(String(await failed.getAttribute('href')), /download_errored_template\?data_import_name=/);
    await screenshot(page, 'import-02-done');
    assert.equal(await storedCount(t, ORDER), 2);
    assert.deepEqual(problems, []);
  });
});
