import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUuid, uuid7 } from './uuid.js';

describe('uuid7', () => {
  test('makes a canonical lower-case UUID with version 7 and the RFC variant', () => {
    const id = uuid7();
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('puts the Unix milliseconds in the first 48 bits', () => {
    const at = 0x0123_4567_89ab;
    const id = uuid7(at);
    assert.equal(id.slice(0, 13), '01234567-89ab');
  });

  test('sorts UUIDs of later milliseconds after earlier ones', () => {
    assert.ok(uuid7(1_700_000_000_000) < uuid7(1_700_000_000_001));
  });

  test('never repeats', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => uuid7(5)));
    assert.equal(ids.size, 1000);
  });
});

describe('parseUuid', () => {
  const canonical = '0190a7d2-3c4b-7def-8123-456789abcdef';

  test('accepts a UUID of any version and any case, normalised to lower case', () => {
    assert.equal(parseUuid('0190A7D2-3C4B-7DEF-8123-456789ABCDEF'), canonical);
    assert.equal(parseUuid('6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '6ba7b810-9dad-11d1-80b4-00c04fd430c8');
  });

  test('accepts the spellings without hyphens, in braces or as a URN', () => {
    assert.equal(parseUuid('0190a7d23c4b7def8123456789abcdef'), canonical);
    assert.equal(parseUuid(`{${canonical}}`), canonical);
    assert.equal(parseUuid(`urn:uuid:${canonical}`), canonical);
  });

  test('refuses text that is not 32 hex digits, and non-strings', () => {
    for (const bad of ['', 'abc', `${canonical}0`, canonical.replace('a', 'g'), 42, null, undefined, {}]) {
      assert.equal(parseUuid(bad), undefined, String(bad));
    }
  });
});
