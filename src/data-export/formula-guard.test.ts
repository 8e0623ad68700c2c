import { test } from 'node:test';
import assert from 'node:assert/strict';
import { neutraliseFormula } from './formula-guard.js';

const cases: Array<[string, string]> = [
  ['=HYPERLINK("http://x")', `'=HYPERLINK("http://x")`],
  ['+1+2', `'+1+2`],
  ['-2+3', `'-2+3`],
  ['@SUM(A1)', `'@SUM(A1)`],
  ['\t=1', `'\t=1`],
  ['\r=1', `'\r=1`],
  ['plain text', 'plain text'],
  ['a=b', 'a=b'],
  ['', ''],
  ['€ 5', '€ 5'],
];

for (const [input, expected] of cases) {
  test(`${JSON.stringify(input)} is written as ${JSON.stringify(expected)}`, () => {
    assert.equal(neutraliseFormula(input), expected);
  });
}
