import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Liquid } from 'liquidjs';
import { escapeIntoJson } from './json-escape.js';
import { compilePlainTemplate } from './plain-template.js';

/** LiquidJS with the options of json-template.ts that decide what an output renders as. */
const liquid = new Liquid({ ownPropertyOnly: true, outputEscape: escapeIntoJson });

const docs: Record<string, unknown>[] = [
  { name: 'T-1', description: 'He said "hi" </script>\n\\ ü', qty: 3, ratio: 0.5, flag: true, nothing: null, items: [{ item: 'a' }], meta: { a: 1 } },
  { name: 42, description: '', qty: 0 },
  {},
];

describe('plain webhook templates', () => {
  test('render exactly as LiquidJS does', () => {
    const templates = [
      '{"id": "{{ doc.name }}", "text": "{{ doc.description }}", "qty": {{ doc.qty }}}',
      '{"a": "{{doc.ratio}}", "b": "{{  doc.flag  }}", "c": "{{ doc.nothing }}", "d": "{{ doc.missing }}"}',
      '{"items": "{{ doc.items }}", "meta": "{{ doc.meta }}", "proto": "{{ doc.__proto__ }}", "ctor": "{{ doc.constructor }}"}',
      '{"x": "{{\n doc.name\n}}"} }} trailing',
      'no outputs at all',
      '',
    ];
    for (const source of templates) {
      const plain = compilePlainTemplate(source);
      assert.ok(plain, `plain: ${source}`);
      for (const doc of docs) assert.equal(plain(doc), liquid.parseAndRenderSync(source, { doc }), `${source} with ${JSON.stringify(doc)}`);
    }
  });

  test('anything but literal text and doc fields is left to LiquidJS', () => {
    for (const source of [
      '{{ doc.name | upcase }}',
      '{{- doc.name }}',
      '{% if doc.qty %}1{% endif %}',
      '{{ name }}',
      '{{ doc.items.first }}',
      '{{ doc.size }}',
      '{{ doc["name"] }}',
      '{{ doc.name }} {{ unclosed',
    ]) {
      assert.equal(compilePlainTemplate(source), undefined, source);
    }
  });
});
