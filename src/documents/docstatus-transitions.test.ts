import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../errors/index.js';
import { checkDiscardable, docstatusAction, parseDocstatus, type DocStatus } from './docstatus-transitions.js';

type Expected = string | { readonly error: string; readonly message: RegExp };

/** (from, to, submittable) -> the action, or the error class and message (docs/architecture.md "The document pipeline" table). */
const TABLE: ReadonlyArray<readonly [DocStatus | undefined, DocStatus, boolean, Expected]> = [
  [undefined, 0, true, 'save'],
  [undefined, 1, true, 'submit'],
  [undefined, 2, true, { error: 'DocstatusTransitionError', message: /^Cannot change docstatus from 0 \(Draft\) to 2 \(Cancelled\)$/ }],
  [0, 0, true, 'save'],
  [0, 1, true, 'submit'],
  [0, 2, true, { error: 'DocstatusTransitionError', message: /^Cannot change docstatus from 0 \(Draft\) to 2 \(Cancelled\)$/ }],
  [1, 0, true, { error: 'DocstatusTransitionError', message: /^Cannot change docstatus from 1 \(Submitted\) to 0 \(Draft\)$/ }],
  [1, 1, true, 'update_after_submit'],
  [1, 2, true, 'cancel'],
  [2, 0, true, { error: 'ValidationError', message: /^Cannot edit cancelled document$/ }],
  [2, 1, true, { error: 'ValidationError', message: /^Cannot edit cancelled document$/ }],
  [2, 2, true, { error: 'ValidationError', message: /^Cannot edit cancelled document$/ }],
  [undefined, 0, false, 'save'],
  [0, 0, false, 'save'],
  [undefined, 1, false, { error: 'ValidationError', message: /is not submittable/ }],
  [undefined, 2, false, { error: 'ValidationError', message: /is not submittable/ }],
  [0, 1, false, { error: 'ValidationError', message: /is not submittable/ }],
  [0, 2, false, { error: 'ValidationError', message: /is not submittable/ }],
  [1, 1, false, { error: 'ValidationError', message: /is not submittable/ }],
];

function caught(fn: () => unknown): FwError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof FwError, `an FwError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected an error');
}

describe('docstatusAction', () => {
  for (const [from, to, submittable, expected] of TABLE) {
    const label = `${from ?? 'new'} -> ${to} on a ${submittable ? 'submittable' : 'non-submittable'} DocType`;
    if (typeof expected === 'string') {
      test(`${label} is a ${expected}`, () => {
        assert.equal(docstatusAction(from, to, submittable, 'Order'), expected);
      });
    } else {
      test(`${label} is refused with ${expected.error} (417)`, () => {
        const err = caught(() => docstatusAction(from, to, submittable, 'Order'));
        assert.equal(err.excType, expected.error);
        assert.equal(err.status, 417);
        assert.match(err.message, expected.message);
      });
    }
  }
});

describe('parseDocstatus', () => {
  test('accepts 0, 1 and 2 as numbers or numeric text', () => {
    assert.deepEqual([0, 1, 2, '0', '1', ' 2 '].map(parseDocstatus), [0, 1, 2, 0, 1, 2]);
  });

  test('refuses any other value with a 417', () => {
    for (const value of [3, -1, 1.5, 'one', '', true, null, {}]) {
      const err = caught(() => parseDocstatus(value));
      assert.equal(err.status, 417, `for ${JSON.stringify(value)}`);
    }
  });
});

describe('checkDiscardable', () => {
  test('lets a draft of a submittable DocType be discarded', () => {
    assert.doesNotThrow(() => checkDiscardable(0, true, 'Order', 'O-1'));
  });

  test('refuses submitted and cancelled documents, naming their state', () => {
    assert.match(caught(() => checkDiscardable(1, true, 'Order', 'O-1')).message, /O-1 is submitted: only draft documents/);
    assert.match(caught(() => checkDiscardable(2, true, 'Order', 'O-1')).message, /O-1 is cancelled: only draft documents/);
  });

  test('refuses documents of a DocType that is not submittable', () => {
    assert.match(caught(() => checkDiscardable(0, false, 'Note', 'N-1')).message, /Note is not submittable/);
  });
});
