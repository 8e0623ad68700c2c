import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnLetters, dateSerial } from './xlsx-export.js';
import { escapeXml, sheetName } from './xlsx-parts.js';

test('column letters run A..Z, AA.., as spreadsheets name them', () => {
  assert.deepEqual([0, 1, 25, 26, 27, 51, 52, 701, 702].map(columnLetters), ['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
});

test('dates and datetimes become serials from 1899-12-30; other text does not', () => {
  assert.equal(dateSerial('1970-01-01'), 25569);
  assert.equal(dateSerial('2025-03-04'), 45720);
  assert.equal(dateSerial('2025-03-04 12:00:00'), 45720.5);
  assert.equal(dateSerial('2025-03-04 06:00:00.500000'), 45720.25 + 0.5 / 86400);
  assert.equal(dateSerial('04/03/2025'), undefined);
  assert.equal(dateSerial('2025-03-04x'), undefined);
});

test('sheet names are at most 31 characters, without the characters spreadsheets refuse', () => {
  assert.equal(sheetName('Sales [2025]: a/b\\c?*'), 'Sales  2025   a b c');
  assert.equal(sheetName('x'.repeat(40)).length, 31);
  assert.equal(sheetName(' :: '), 'Sheet1');
});

test('XML text is escaped and characters XML cannot hold are dropped', () => {
  assert.equal(escapeXml('a<b>&"c"'), 'a&lt;b&gt;&amp;&quot;c&quot;');
  assert.equal(escapeXml('ok\u0000\u0007\u000b\ufffe\ud800 tab\tline\n'), 'ok tab\tline\n');
  assert.equal(escapeXml('emoji 😀 kept'), 'emoji 😀 kept');
});
