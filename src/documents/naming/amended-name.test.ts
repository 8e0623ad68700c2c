import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { amendedName } from './amended-name.js';

describe('amendedName', () => {
  test('appends -1 to a document that is not itself an amendment', () => {
    assert.equal(amendedName('X', false), 'X-1');
  });

  test('keeps a series number of a first document instead of taking it for an amend counter', () => {
    assert.equal(amendedName('TASK-00001', false), 'TASK-00001-1');
  });

  test('raises the counter when amending an amendment', () => {
    assert.equal(amendedName('X-1', true), 'X-2');
    assert.equal(amendedName('TASK-00001-9', true), 'TASK-00001-10');
  });

  test('appends -1 to an amendment whose name has no counter', () => {
    assert.equal(amendedName('renamed', true), 'renamed-1');
  });
});
