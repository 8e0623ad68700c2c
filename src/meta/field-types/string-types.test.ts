import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FwError } from '../../errors/index.js';
import type { DocField } from '../doctype.js';
import type { FieldContext } from './field-type.js';
import { createFieldTypeRegistry } from './index.js';

const registry = createFieldTypeRegistry();
const ctx: FieldContext = { doctype: 'Test', timeZone: 'UTC', user: 'jane@example.com' };
const field = (fieldtype: string, extra: Partial<DocField> = {}): DocField => ({
  fieldname: 'field',
  label: 'Field',
  fieldtype,
  ...extra,
});

/** Coerces then validates, as the document layer does on every write. */
function write(f: DocField, value: unknown): unknown {
  const type = registry.get(f.fieldtype);
  const stored = type.coerce(value, f, ctx);
  if (stored !== null && stored !== undefined) type.validate?.(stored, f, ctx);
  return stored;
}

/** The exc_type and message of the error a write throws. */
function refusal(f: DocField, value: unknown): { excType: string; message: string; status: number } {
  try {
    write(f, value);
  } catch (err) {
    if (err instanceof FwError) return { excType: err.excType, message: err.message, status: err.status };
    throw err;
  }
  assert.fail(`${f.fieldtype} accepted ${JSON.stringify(value)}`);
}

const VARCHAR_TYPES = [...['Data', 'Phone', 'Link', 'Dynamic Link', 'Autocomplete'], ...['Icon', 'Read Only', 'Color', 'Barcode', 'Select']];
const TEXT_TYPES = [
  ...['Small Text', 'Text', 'Long Text', 'Code', 'Markdown Editor', 'HTML Editor'],
  ...['Text Editor', 'Attach', 'Attach Image', 'Signature', 'Geolocation', 'Password'],
];

describe('string field types: columns', () => {
  for (const name of VARCHAR_TYPES) {
    test(`${name} is a varchar of 140, or of the field's length`, () => {
      assert.deepEqual(registry.get(name).column(field(name)), { kind: 'varchar', length: 140 });
      assert.deepEqual(registry.get(name).column(field(name, { length: 20 })), { kind: 'varchar', length: 20 });
    });
  }
  for (const name of TEXT_TYPES) {
    test(`${name} is a text column`, () => {
      assert.deepEqual(registry.get(name).column(field(name)), { kind: 'text' });
    });
  }
});

describe('string field types: generic coercion', () => {
  for (const name of [...VARCHAR_TYPES.filter((n) => n !== 'Select' && n !== 'Phone'), ...TEXT_TYPES]) {
    test(`${name} keeps strings, stringifies numbers and turns null into null`, () => {
      assert.equal(write(field(name), 'abc'), 'abc');
      assert.equal(write(field(name), 42), '42');
      assert.equal(write(field(name), 1.5), '1.5');
      assert.equal(write(field(name), null), null);
      assert.equal(write(field(name), undefined), null);
    });
  }
  for (const name of [...VARCHAR_TYPES, ...TEXT_TYPES]) {
    test(`${name} refuses lists, objects and booleans with 417 naming the field`, () => {
      const list = refusal(field(name), ['a']);
      assert.equal(list.excType, 'ValidationError');
      assert.equal(list.status, 417);
      assert.equal(list.message, 'Value for Field cannot be a list');
      assert.match(refusal(field(name), { a: 1 }).message, /Field/);
      assert.equal(refusal(field(name), true).excType, 'ValidationError');
    });
  }

  test('uses the fieldname in messages when the field has no label', () => {
    assert.equal(refusal({ fieldname: 'notes', fieldtype: 'Data' }, [1]).message, 'Value for notes cannot be a list');
  });

  test('keeps "" for plain text types but stores NULL for Select, Link and Dynamic Link', () => {
    for (const name of ['Data', 'Small Text', 'Text', 'Code', 'Password', 'Color']) {
      assert.equal(write(field(name), ''), '');
    }
    for (const name of ['Select', 'Link', 'Dynamic Link']) assert.equal(write(field(name), ''), null);
  });

  test('stores "" as NULL on a unique field so empty values never clash', () => {
    assert.equal(write(field('Data', { unique: 1 }), ''), null);
  });

  test('counts blank strings as missing', () => {
    assert.equal(registry.get('Data').isEmpty?.('   '), true);
    assert.equal(registry.get('Data').isEmpty?.(' x '), false);
    assert.equal(registry.get('Small Text').isEmpty?.('<p> </p>'), true);
  });
});

describe('string field types: length', () => {
  test('refuses a value longer than 140 characters with CharacterLengthExceededError', () => {
    const r = refusal(field('Data', { label: 'Title' }), 'x'.repeat(141));
    assert.equal(r.excType, 'CharacterLengthExceededError');
    assert.equal(r.status, 417);
    assert.match(r.message, /^Title: 'x{40}\.\.\.' will get truncated, as max characters allowed is 140$/);
  });

  test('accepts exactly the maximum, counting characters rather than UTF-16 units', () => {
    assert.equal(write(field('Data', { length: 3 }), '😀😀😀'), '😀😀😀');
    assert.equal(refusal(field('Link', { length: 3 }), 'abcd').excType, 'CharacterLengthExceededError');
  });

  test('does not limit text columns', () => {
    assert.equal((write(field('Long Text'), 'y'.repeat(10_000)) as string).length, 10_000);
  });
});

describe('Data options', () => {
  const accepted: [string, string][] = [
    ['Email', 'a@example.com'],
    ['Email', 'first.last+tag@sub.example.co.uk'],
    ['Email', 'a@example.com, b@example.org'],
    ['Email', 'Jane Doe <jane@example.com>; b@example.org'],
    ['Phone', '+91 (22) 1234-5678'],
    ['Phone', '555.123.4567'],
    ['URL', 'https://example.com/path?q=1'],
    ['URL', 'http://localhost:8000'],
    ['URL', 'ftp://files.example.com/x'],
    ['Name', "Jane O'Brien-Smith"],
    ['Name', 'Dr. José Ñúñez'],
    ['IBAN', 'GB82 WEST 1234 5698 7654 32'],
    ['Barcode', '4006381333931'],
  ];
  for (const [options, value] of accepted) {
    test(`Data with options ${options} accepts ${JSON.stringify(value)}`, () => {
      assert.equal(write(field('Data', { options }), value), value);
    });
  }

  const refused: [string, string, string][] = [
    ['Email', 'not-an-email', 'InvalidEmailAddressError'],
    ['Email', 'a@example.com, b@', 'InvalidEmailAddressError'],
    ['Email', 'a@localhost', 'InvalidEmailAddressError'],
    ['Email', '"<script>x</script>" <a@example.com>', 'InvalidEmailAddressError'],
    ['Phone', 'call me', 'InvalidPhoneNumberError'],
    ['Phone', '12', 'InvalidPhoneNumberError'],
    ['URL', 'example.com', 'InvalidURLError'],
    ['URL', 'javascript:alert(1)', 'InvalidURLError'],
    ['URL', 'mailto:a@example.com', 'InvalidURLError'],
    ['Name', 'Jane <b>', 'ValidationError'],
    ['Name', 'back\\slash', 'ValidationError'],
    ['Name', 'say "hi"', 'ValidationError'],
    ['IBAN', 'GB82 WEST 1234 5698 7654 33', 'ValidationError'],
  ];
  for (const [options, value, excType] of refused) {
    test(`Data with options ${options} refuses ${JSON.stringify(value)} with ${excType}`, () => {
      const r = refusal(field('Data', { options }), value);
      assert.equal(r.excType, excType);
      assert.equal(r.status, 417);
    });
  }

  test('accepts an empty value whatever the options', () => {
    for (const options of ['Email', 'Phone', 'URL', 'Name']) assert.equal(write(field('Data', { options }), ''), '');
  });

  test('checks the Phone field type like Data with options Phone', () => {
    assert.equal(write(field('Phone'), '+1 555 0100'), '+1 555 0100');
    assert.equal(refusal(field('Phone'), 'abc').excType, 'InvalidPhoneNumberError');
  });
});

describe('Select', () => {
  const status = field('Select', { label: 'Status', options: '\nOpen \n\n Closed\nCancelled\n' });

  test('accepts one of the trimmed options', () => {
    assert.equal(write(status, 'Open'), 'Open');
    assert.equal(write(status, 'Closed'), 'Closed');
  });

  test('refuses anything else with the reference message', () => {
    const r = refusal(status, 'Pending');
    assert.equal(r.excType, 'ValidationError');
    assert.equal(r.message, 'Status cannot be "Pending". It should be one of "Open", "Closed", "Cancelled"');
  });

  test('compares numbers by their string form', () => {
    assert.equal(write(field('Select', { options: '1\n2' }), 2), '2');
    assert.equal(refusal(field('Select', { options: '1\n2' }), 3).excType, 'ValidationError');
  });

  test('takes any value when it has no options', () => {
    assert.equal(write(field('Select'), 'whatever'), 'whatever');
  });
});

describe('sanitised and verbatim text', () => {
  const markup = '<b>bold</b><script>alert(1)</script><img src="x" onerror="alert(2)">';

  for (const name of ['Data', 'Small Text', 'Text', 'Long Text']) {
    test(`${name} strips scripts from markup but keeps formatting`, () => {
      assert.equal(write(field(name, { length: 1000 }), markup), '<b>bold</b><img src="x" />');
    });
  }

  test('keeps text that only looks like a comparison verbatim', () => {
    assert.equal(write(field('Text'), 'a < b && c > d'), 'a < b && c > d');
  });

  test('does not sanitise an Email field, whose named addresses look like tags', () => {
    assert.equal(write(field('Data', { options: 'Email' }), 'Jane <jane@example.com>'), 'Jane <jane@example.com>');
  });

  for (const name of ['Code', 'Markdown Editor', 'HTML Editor']) {
    test(`${name} keeps its value verbatim`, () => {
      assert.equal(write(field(name), markup), markup);
    });
  }
});

describe('string defaults', () => {
  for (const name of ['Data', 'Link', 'Small Text', 'Select']) {
    test(`${name} resolves __user to the acting user and keeps other defaults as text`, () => {
      const type = registry.get(name);
      assert.equal(type.resolveDefault?.('__user', field(name), ctx), 'jane@example.com');
      assert.equal(type.resolveDefault?.('Open', field(name), ctx), 'Open');
    });
  }
});

describe('Password', () => {
  test('is secret and coerces like text', () => {
    const type = registry.get('Password');
    assert.equal(type.secret, true);
    assert.equal(write(field('Password'), 's3cret'), 's3cret');
    assert.equal(registry.get('Data').secret, undefined);
  });
});
