import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConditionError, parseCondition } from './condition.js';

const doc = { name: 'T-1', status: 'Open', priority: 'High', qty: 5, total: 12.5, is_active: 1, tags: ['a', 'b'], empty: '', nothing: null };

describe('webhook conditions', () => {
  const cases: [string, boolean][] = [
    ['', true],
    ['doc.status == "Open"', true],
    ["doc.status == 'Closed'", false],
    ['doc.status == "Open" and doc.priority in ["High", "Urgent"]', true],
    ['doc.status == "Open" and doc.priority in ("Low", "Medium")', false],
    ['doc.priority not in ["Low"]', true],
    ['not doc.empty', true],
    ['doc.nothing is None', true],
    ['doc.nothing is not None', false],
    ['doc.missing_field == None', true],
    ['doc.qty > 3 and doc.qty <= 5', true],
    ['1 < doc.qty < 5', false],
    ['doc.total * 2 == 25', true],
    ['doc.is_active == True', true],
    ['doc.is_active', true],
    ['doc.get("status") == "Open"', true],
    ['doc.get("missing", "x") == "x"', true],
    ['doc["priority"] == "High"', true],
    ['"a" in doc.tags and len(doc.tags) == 2', true],
    ['"pe" in doc.status', true],
    ['doc.status == "Open" or 1 / 0', true],
    ['(doc.qty + 1) * 2 == 12', true],
    ['-doc.qty < 0', true],
    ['doc.constructor', false],
    ['doc.__proto__', false],
    ['doc.toString', false],
  ];
  for (const [source, expected] of cases) {
    test(`${JSON.stringify(source)} is ${expected}`, () => {
      assert.equal(parseCondition(source).matches(doc), expected);
    });
  }

  test('anything beyond the grammar is refused when parsed, with the reason', () => {
    for (const [source, message] of [
      ['__import__("os").system("id")', /Unknown name "__import__"/],
      ['frappe.db.get_value("User", "x")', /Unknown name "frappe"/],
      ['doc.status = "Open"', /Unexpected character "="/],
      ['doc.status == "Open', /Unterminated string/],
      ['doc.name.upper()', /Unexpected "\("/],
      ['doc.status ==', /Unexpected the end/],
      ['lambda: 1', /Unexpected character ":"/],
      ['not '.repeat(100) + 'doc', /nested too deeply/],
      ['x'.repeat(5000), /at most 4000 characters/],
    ] as const) {
      assert.throws(
        () => parseCondition(source),
        (err: unknown) => err instanceof ConditionError && message.test((err as Error).message),
        source,
      );
    }
  });

  test('type mismatches fail when evaluated, as the reference does', () => {
    assert.throws(() => parseCondition('doc.status > 3').matches(doc), ConditionError);
    assert.throws(() => parseCondition('doc.qty in doc.qty').matches(doc), ConditionError);
  });
});
