import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { JobWorker } from '../../src/jobs/job-worker.js';
import { testDialects } from '../helpers/dialects.js';
import { dataOf } from '../helpers/document-api.js';
import { createUser, USER_PASSWORD } from '../helpers/permission-users.js';
import { axeViolations, browserSkipReason, launchBrowser, listen, login, newContext, screenshot, urlMatches } from '../helpers/browser.js';
import { sidewaysOverflow } from '../helpers/page-overflow.js';
import { ADMIN_PASSWORD, startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * The Files screen (upload by button and by drop, progress, private or public, thumbnails, sizes,
 * search, previews, who may open a private file) and the Operations screen (background jobs with
 * retry, scheduled runs, request metrics), each under axe at a desktop and a phone size.
 */

const skip = browserSkipReason();
if (skip) console.log(`# admin UI browser tests skipped: ${skip}`);
const dialect = testDialects()[0];
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];
/** A 2×2 red PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

describe(`admin UI: files and operations (${dialect.name})`, { skip }, () => {
  let t: TestSite;
  let browser: Browser;
  let base: string;
  let page: Page;
  let problems: string[];
  const failedRequests: string[] = [];

  async function checkScreens(name: string, ready: () => Promise<void>) {
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await ready();
      assert.deepEqual(await axeViolations(page), [], `${name} at ${size.name}`);
      // Nothing scrolls sideways, on a phone included.
      const wide = await sidewaysOverflow(page);
      assert.deepEqual(wide, [], `${name} at ${size.name} scrolls sideways`);
      await screenshot(page, `files-ops-${name}-${size.name}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  before(async () => {
    t = await startTestSite(dialect);
    base = await listen(t);
    browser = await launchBrowser();
    ({ page, problems } = await newContext(browser, base));
    page.setDefaultTimeout(20_000);
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().includes('/private/files/')) failedRequests.push(`${r.status()} ${r.url()}`);
    });
    await createUser(t, 'clerk@files.test');
    await login(page, 'Administrator', ADMIN_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('"New File" opens the Files screen, which uploads several files by button and by drop, with progress', async () => {
    await page.goto('/app/file/new');
    await urlMatches(page, /\/app\/file$/);
    await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
    // Private is the default; two files at once through the button.
    assert.equal(await page.getByRole('radio', { name: /^Private/ }).isChecked(), true);
    await page.locator('#file-picker').setInputFiles([
      { name: 'red-square.png', mimeType: 'image/png', buffer: PNG },
      { name: 'quarterly-report.pdf', mimeType: 'application/pdf', buffer: PDF },
    ]);
    await page.locator('[data-upload-state="done"]').nth(1).waitFor();
    assert.equal(await page.getByRole('progressbar', { name: 'Upload of red-square.png' }).getAttribute('value'), '100');
    await page.locator('tr[data-file="quarterly-report.pdf"]').waitFor();
    // A third, public, dropped on the drop zone.
    await page.getByRole('radio', { name: /^Public/ }).check();
    const drop = await page.evaluateHandle(() => {
      const g = globalThis as unknown as {
        DataTransfer: new () => { items: { add(f: unknown): void } };
        File: new (parts: string[], name: string, o: object) => unknown;
      };
      const dt = new g.DataTransfer();
      dt.items.add(new g.File(['hello, files\n'], 'dropped-notes.txt', { type: 'text/plain' }));
      return dt;
    });
    await page.locator('[data-dropzone]').dispatchEvent('drop', { dataTransfer: drop });
    await page.locator('tr[data-file="dropped-notes.txt"]').waitFor();

    const files = dataOf(
      await t.request({ method: 'GET', url: '/api/resource/File?fields=["file_name","is_private","file_size","owner"]&limit_page_length=0' }),
    ) as unknown as { file_name: string; is_private: number; file_size: number; owner: string }[];
    const byName = new Map(files.map((f) => [f.file_name, f]));
    assert.equal(byName.get('red-square.png')?.is_private, 1);
    assert.equal(byName.get('quarterly-report.pdf')?.is_private, 1);
    assert.equal(byName.get('dropped-notes.txt')?.is_private, 0);

    // Each row: thumbnail (images), name, human size, type, uploader.
    const png = page.locator('tr[data-file="red-square.png"]');
    assert.ok(await png.locator('img.thumb').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0));
    assert.match(await png.innerText(), /\b\d+ B\b/);
    assert.match(await png.innerText(), /PNG/);
    assert.match(await png.innerText(), /Administrator/);
    assert.match(await page.locator('tr[data-file="dropped-notes.txt"]').innerText(), /13 B[\s\S]*TXT/);
    await checkScreens('files', () => page.locator('tr[data-file="red-square.png"]').waitFor());
  });

  test('the Files screen searches by file name and previews images and PDFs', async () => {
    await page.goto('/app/file');
    await page.locator('tr[data-file="red-square.png"]').waitFor();
    await page.getByLabel('Search by file name').fill('report');
    await page.locator('[data-total]').filter({ hasText: '1 of 1' }).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.getByLabel('Search by file name').fill('');
    await page.locator('[data-total]').filter({ hasText: '3 of 3' }).waitFor();

    await page.getByRole('button', { name: 'red-square.png', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'red-square.png' });
    await dialog.locator('[data-preview-image]').waitFor();
    await page.waitForFunction(() => {
      const img = (
        globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null } }
      ).document.querySelector('[data-preview-image]');
      return img?.complete === true && img.naturalWidth === 2;
    });
    await checkScreens('image-preview', () => dialog.waitFor());
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'quarterly-report.pdf', exact: true }).click();
    const pdf = page.getByRole('dialog', { name: 'quarterly-report.pdf' });
    const href = await pdf.getByRole('link', { name: 'Open PDF' }).getAttribute('href');
    assert.match(href ?? '', /^\/private\/files\/quarterly-report.*\.pdf$/);
    const served = await page.request.get(href!);
    assert.equal(served.status(), 200);
    assert.equal(served.headers()['content-type'], 'application/pdf');
    await screenshot(page, 'files-ops-pdf-preview');
    await page.keyboard.press('Escape');
    assert.deepEqual(problems, []);
  });

  test('a private file opens only for those who may read it, and others never see it listed', async () => {
    const url = String(
      (
        dataOf(await t.request({ method: 'GET', url: '/api/resource/File?fields=["file_url"]&filters=[["file_name","=","red-square.png"]]' })) as unknown as {
          file_url: string;
        }[]
      )[0]!.file_url,
    );
    const { context, page: clerk } = await newContext(browser, base);
    try {
      await login(clerk, 'clerk@files.test', USER_PASSWORD);
      const refused = await clerk.request.get(url);
      assert.equal(refused.status(), 403);
      assert.notEqual(refused.headers()['content-type'], 'image/png');
      await clerk.goto('/app/file');
      // The clerk may upload (everyone may create Files) but reads only their own.
      await clerk.getByText('No files yet.').waitFor();
      assert.equal(await clerk.locator('tr[data-file]').count(), 0);
      await clerk.locator('#file-picker').setInputFiles([{ name: 'clerk-own.png', mimeType: 'image/png', buffer: PNG }]);
      await clerk.locator('tr[data-file="clerk-own.png"]').waitFor();
      assert.equal(await clerk.locator('tr[data-file]').count(), 1);
      assert.equal((await page.request.get(url)).status(), 200);
    } finally {
      await context.close();
    }
  });

  test('the Attach control passes axe on a form', async () => {
    dataOf(
      await t.request({
        method: 'POST',
        url: '/api/resource/DocType',
        body: {
          name: 'Scan',
          module: 'Custom',
          fields: [
            { fieldname: 'title', label: 'Title', fieldtype: 'Data' },
            { fieldname: 'scan', label: 'Scan', fieldtype: 'Attach' },
            { fieldname: 'photo', label: 'Photo', fieldtype: 'Attach Image' },
          ],
          permissions: [{ role: 'System Manager', read: 1, write: 1, create: 1 }],
        },
      }),
    );
    await page.goto('/app/scan/new');
    await page.getByLabel(/^Title/).fill('With attachments');
    await page.keyboard.press('Control+s');
    await urlMatches(page, /\/app\/scan\/[^/]+$/);
    // A fresh load of the saved form, so the upload goes to that page and not the one it replaced.
    await page.goto(new URL(page.url()).pathname);
    await page.locator('[data-fieldname="photo"]').getByRole('button', { name: 'Upload Photo' }).waitFor();
    await page.locator('[data-fieldname="photo"] input[type=file]').setInputFiles([{ name: 'photo.png', mimeType: 'image/png', buffer: PNG }]);
    await page.getByText('Uploaded photo.png').waitFor();
    await page.locator('[data-fieldname="photo"] img').waitFor();
    await checkScreens('attach-control', () => page.locator('[data-fieldname="scan"]').waitFor());
  });

  test('Operations: a failed background job is retried, scheduled runs and request metrics show', async () => {
    let fixed = false;
    t.site.jobs.register('test_ui.sync_invoices', () => {
      if (!fixed) throw new Error('the ledger was locked');
    });
    const failed = await t.site.jobs.enqueue('test_ui.sync_invoices', { batch: 3 }, { maxRetries: 0 });
    await new JobWorker(t.site.jobs).runDue();
    const logged = await t.request({
      method: 'POST',
      url: '/api/resource/Scheduled Job Log',
      body: { scheduled_job_type: 'test_ui.nightly_cleanup', frequency: 'daily', status: 'Complete', slot: '2026-12-01 00:00:00' },
    });
    assert.equal(logged.statusCode, 200, logged.body);

    await page.goto('/app');
    await page.getByRole('link', { name: 'Operations' }).click();
    await urlMatches(page, /\/app\/operations$/);
    const row = page.locator('tr[data-job="test_ui.sync_invoices"]');
    await row.waitFor();
    assert.match(await row.innerText(), /failed[\s\S]*the ledger was locked/);
    await page.locator('[data-scheduled-runs]').getByRole('link', { name: 'test_ui.nightly_cleanup' }).waitFor();
    await page.locator('[data-metric-total]').waitFor();
    assert.ok(Number((await page.locator('[data-metric-total]').innerText()).replace(/\D/g, '')) > 0);
    await checkScreens('operations', () => row.waitFor());

    fixed = true;
    await row.getByRole('button', { name: /^Retry/ }).click();
    await page.getByText(`Job ${failed} queued again`).waitFor();
    await row.getByText('queued', { exact: true }).waitFor();
    assert.equal(await row.getByRole('button', { name: /^Retry/ }).count(), 0);
    assert.equal(await new JobWorker(t.site.jobs).runDue(), 1);

    // A user without System Manager: no Operations link, and the screen shows only refusals.
    const { context, page: clerk } = await newContext(browser, base);
    try {
      await login(clerk, 'clerk@files.test', USER_PASSWORD);
      assert.equal(await clerk.getByRole('link', { name: 'Operations' }).count(), 0);
      await clerk.goto('/app/operations');
      await clerk.getByRole('alert').filter({ hasText: 'System Manager' }).first().waitFor();
      assert.equal(await clerk.locator('tr[data-job]').count(), 0);
    } finally {
      await context.close();
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(failedRequests, []);
  });
});
