import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { FileStore } from '../files/file-store.js';
import { importSource } from './source-rows.js';

/** A store that opens files of one folder by their key's last segment (only `open` is used). */
function folderStore(dir: string): FileStore {
  return {
    async open(key: string) {
      const path = join(dir, key.split('/').pop()!);
      const info = await stat(path).catch(() => undefined);
      return info ? { stream: createReadStream(path), size: info.size, modified: info.mtime, range: undefined } : undefined;
    },
  } as unknown as FileStore;
}

const ROWS = 30_000;

describe('import sources read in part', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fw-import-source-'));
    await writeFile(join(dir, 'big.csv'), ['Title;Qty', ...Array.from({ length: ROWS }, (_, i) => `row ${i};${i}`)].join('\n'));
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('S');
    sheet.addRow(['Title', 'Qty']);
    for (let i = 0; i < ROWS; i++) sheet.addRow([`row ${i}`, i]);
    await workbook.xlsx.writeFile(join(dir, 'big.xlsx'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const name of ['big.csv', 'big.xlsx']) {
    test(`${name}: stopping after the header or in the middle leaves no stream erroring behind, and a full read sees every row`, async () => {
      const errors: unknown[] = [];
      const onError = (err: unknown) => errors.push(err);
      process.on('uncaughtException', onError);
      try {
        const source = importSource(folderStore(dir), `/private/files/${name}`);
        const rows = source.rows();
        const first = await rows.next();
        assert.deepEqual(first.value?.cells, ['Title', 'Qty']);
        await rows.return(undefined);
        // A slice that used up its time stops in the middle of the file.
        let read = 0;
        for await (const _ of source.rows()) if (++read === 5_000) break;
        await new Promise((r) => setTimeout(r, 200));
        let count = 0;
        let last: readonly unknown[] = [];
        for await (const row of source.rows()) {
          count++;
          last = row.cells;
        }
        assert.equal(count, ROWS + 1);
        assert.deepEqual(last, name.endsWith('.csv') ? [`row ${ROWS - 1}`, String(ROWS - 1)] : [`row ${ROWS - 1}`, ROWS - 1]);
      } finally {
        process.off('uncaughtException', onError);
      }
      assert.deepEqual(errors, []);
    });
  }
});
