import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { detectDelimiter, detectEncoding } from './text-sniff.js';

describe('detectDelimiter', () => {
  const cases: [string, string][] = [
    ['a,b,c\n1,2,3', ','],
    ['a;b;c\n1,5;2;3', ';'],
    ['a\tb\tc', '\t'],
    ['a|b|c', '|'],
    ['"x;y;z",b\n', ','],
    ['single', ','],
    ['a;b\r\nc,d,e,f,g', ';'],
  ];
  for (const [text, expected] of cases) {
    test(`${JSON.stringify(text)} -> ${JSON.stringify(expected)}`, () => assert.equal(detectDelimiter(text), expected));
  }
});

describe('detectEncoding', () => {
  const of = (bytes: Buffer, chunk = 3) =>
    Readable.from(Array.from({ length: Math.ceil(bytes.length / chunk) }, (_, i) => bytes.subarray(i * chunk, (i + 1) * chunk)));
  test('UTF-8 with and without a BOM, even with a character split across chunks', async () => {
    assert.equal(await detectEncoding(of(Buffer.from('Title\nCafé crème\n'))), 'utf-8');
    assert.equal(await detectEncoding(of(Buffer.from('\uFEFFTitle\n€\n'), 1)), 'utf-8');
  });
  test('bytes that are not valid UTF-8 are Latin-1', async () => {
    assert.equal(await detectEncoding(of(Buffer.from('Crème\n', 'latin1'))), 'latin1');
    assert.equal(await detectEncoding(of(Buffer.from([0x61, 0xc3]))), 'latin1', 'a sequence cut off at the end');
  });
});
