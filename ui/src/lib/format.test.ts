import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCell, isNumeric, timeAgo } from './format';

describe('format', () => {
  test('knows which field types are numbers', () => {
    assert.equal(isNumeric('Currency'), true);
    assert.equal(isNumeric('Rating'), true);
    assert.equal(isNumeric('Data'), false);
    assert.equal(isNumeric('Check'), false);
  });

  test('shows a list cell as text', () => {
    assert.equal(formatCell(null, undefined), '');
    assert.equal(formatCell('', { fieldname: 'x', fieldtype: 'Data' }), '');
    assert.equal(formatCell(1, { fieldname: 'x', fieldtype: 'Check' }), 'Yes');
    assert.equal(formatCell(0, { fieldname: 'x', fieldtype: 'Check' }), 'No');
    assert.equal(formatCell('<p>Hello <b>you</b></p>', { fieldname: 'x', fieldtype: 'Text Editor' }), 'Hello you');
    assert.equal(formatCell('2025-03-01 10:00:00.123456', { fieldname: 'x', fieldtype: 'Datetime' }), '2025-03-01 10:00:00');
    assert.equal(formatCell({ a: 1 }, undefined), '{"a":1}');
    assert.equal(formatCell('<b>kept</b>', undefined), '<b>kept</b>', 'only rich-text fields lose their markup; Vue escapes the rest');
  });

  test('groups numbers as the locale does, with two decimals for money and a sign for percentages', () => {
    assert.equal(
      formatCell(1234.5, { fieldname: 'x', fieldtype: 'Currency' }),
      (1234.5).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 6 }),
    );
    assert.equal(formatCell('12', { fieldname: 'x', fieldtype: 'Percent' }), `${(12).toLocaleString()} %`);
    assert.equal(formatCell(12345, { fieldname: 'x', fieldtype: 'Int' }), (12345).toLocaleString());
    assert.equal(formatCell('not a number', { fieldname: 'x', fieldtype: 'Float' }), 'not a number');
  });

  test('says how long ago a UTC timestamp was, and leaves what it cannot read as it is', () => {
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString().replace('T', ' ').replace('Z', '000');
    assert.equal(timeAgo(ago(5)), 'just now');
    assert.equal(timeAgo(ago(600)), '10 min ago');
    assert.equal(timeAgo(ago(3 * 3600)), '3 h ago');
    assert.equal(timeAgo(ago(2 * 86400)), '2 d ago');
    assert.equal(timeAgo('2020-01-02 03:04:05'), '2020-01-02');
    assert.equal(timeAgo('yesterday'), 'yesterday');
    assert.equal(timeAgo(42), '');
  });
});
