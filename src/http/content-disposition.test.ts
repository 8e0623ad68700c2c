import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attachmentDisposition } from './content-disposition.js';

test('an ASCII name is sent as is in both parameters', () => {
  assert.equal(attachmentDisposition('ToDo.csv'), `attachment; filename="ToDo.csv"; filename*=UTF-8''ToDo.csv`);
});

test('a non-ASCII name keeps its exact form in filename* and a safe stand-in in filename', () => {
  assert.equal(attachmentDisposition('Café «A».xlsx'), `attachment; filename="Caf_ _A_.xlsx"; filename*=UTF-8''Caf%C3%A9%20%C2%ABA%C2%BB.xlsx`);
});

test('quotes, backslashes, line breaks and apostrophes cannot break out of the header', () => {
  const header = attachmentDisposition('a"b\\c\r\nSet-Cookie: x\'(y).csv');
  assert.doesNotMatch(header, /[\r\n]/);
  assert.equal(header, `attachment; filename="a_b_c__Set-Cookie: x'(y).csv"; filename*=UTF-8''a%22b%5Cc%0D%0ASet-Cookie%3A%20x%27%28y%29.csv`);
});
