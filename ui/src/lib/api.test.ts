import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, attachmentName, serverMessages } from './api';

describe('api messages', () => {
  test('decodes _server_messages, a JSON list of JSON texts, and shows markup as text', () => {
    const body = {
      _server_messages: JSON.stringify([
        JSON.stringify({ message: 'Value missing for <b>Title</b>', title: 'Missing' }),
        JSON.stringify({ message: 'Second' }),
      ]),
    };
    assert.deepEqual(serverMessages(body), [{ message: 'Value missing for Title', title: 'Missing' }, { message: 'Second' }]);
  });

  test("falls back to an error's message, then to its exception line without the class name", () => {
    assert.deepEqual(serverMessages({ exc_type: 'PermissionError', message: 'Not permitted' }), [{ message: 'Not permitted' }]);
    assert.deepEqual(serverMessages({ _server_messages: 'not json', exception: 'fw.exceptions.DataError: Field not permitted' }), [
      { message: 'Field not permitted' },
    ]);
    assert.deepEqual(serverMessages({ message: 'a success, not an error' }), []);
  });

  test('names a refusal by its messages, else by its exc_type and status', () => {
    assert.equal(new ApiError(417, 'ValidationError', [{ message: 'a' }, { message: 'b' }]).message, 'a\nb');
    assert.equal(new ApiError(502, '', []).message, 'Error (502)');
    assert.equal(new ApiError(403, 'PermissionError', []).message, 'PermissionError (403)');
  });

  test("an attachment's name: the exact UTF-8 filename* first, then the plain filename, then the fallback", () => {
    const both = `attachment; filename="Zo__s ledger.csv"; filename*=UTF-8''Zo%C3%AB%E2%80%99s%20ledger.csv`;
    assert.equal(attachmentName(both, 'x.csv'), 'Zoë’s ledger.csv');
    assert.equal(attachmentName('attachment; filename="Plain.xlsx"', 'x.xlsx'), 'Plain.xlsx');
    assert.equal(attachmentName(`attachment; filename="Bad.csv"; filename*=UTF-8''%E2%ZZ.csv`, 'x.csv'), 'Bad.csv');
    assert.equal(attachmentName(null, 'Fallback.csv'), 'Fallback.csv');
    assert.equal(attachmentName('attachment', 'Fallback.csv'), 'Fallback.csv');
  });
});
