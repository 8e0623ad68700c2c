import { describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { answerConfirm, confirmAction, toast, ui } from './notify';

describe('notify', () => {
  test('shows a toast and takes it away later, an error one later than the others', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      toast('Saved', 'success');
      toast('Failed', 'error');
      assert.deepEqual(
        ui.toasts.map((t) => t.text),
        ['Saved', 'Failed'],
      );
      mock.timers.tick(4000);
      assert.deepEqual(
        ui.toasts.map((t) => t.text),
        ['Failed'],
      );
      mock.timers.tick(4000);
      assert.deepEqual(ui.toasts, []);
    } finally {
      mock.timers.reset();
    }
  });

  test('resolves a confirmation with the answer, and a confirmation replaced by another as Cancel', async () => {
    const first = confirmAction('Delete?', { danger: true });
    assert.equal(ui.confirm?.danger, true);
    const second = confirmAction('Really?');
    assert.equal(await first, false);
    assert.deepEqual({ title: ui.confirm?.title, action: ui.confirm?.action }, { title: 'Are you sure?', action: 'Yes' });
    answerConfirm(true);
    assert.equal(await second, true);
    assert.equal(ui.confirm, null);
  });
});
