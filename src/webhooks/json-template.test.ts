import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderJsonTemplate, TemplateError } from './json-template.js';

const doc = { name: 'T-1', description: 'He said "hi" </script>\n\\', qty: 3, items: [{ item: 'a' }, { item: 'b' }], nothing: null };

describe('webhook JSON templates', () => {
  test('values are escaped into valid JSON wherever they appear', async () => {
    assert.deepEqual(await renderJsonTemplate('{"id": "{{ doc.name }}", "text": "{{ doc.description }}", "qty": {{ doc.qty }}}', doc), {
      id: 'T-1',
      text: doc.description,
      qty: 3,
    });
  });

  test('tojson inserts structured values, loops and conditions work as in Jinja', async () => {
    assert.deepEqual(await renderJsonTemplate('{"items": {{ doc.items | tojson }}, "n": {{ doc.nothing | tojson }}}', doc), { items: doc.items, n: null });
    assert.deepEqual(
      await renderJsonTemplate(
        '{"names": [{% for r in doc.items %}"{{ r.item }}"{% unless forloop.last %},{% endunless %}{% endfor %}]{% if doc.qty > 2 %}, "big": true{% endif %}}',
        doc,
      ),
      { names: ['a', 'b'], big: true },
    );
  });

  test('an empty template is {}; output that is not JSON, unknown filters and file access are errors', async () => {
    assert.deepEqual(await renderJsonTemplate('  ', doc), {});
    await assert.rejects(renderJsonTemplate('{"id": {{ doc.name }}}', doc), TemplateError);
    await assert.rejects(renderJsonTemplate('{{ doc.name | nope }}', doc), TemplateError);
    await assert.rejects(renderJsonTemplate('{% include "/etc/passwd" %}', doc), TemplateError);
    await assert.rejects(renderJsonTemplate('{% render "site_config.json" %}', doc), TemplateError);
  });

  test('only own properties are reachable', async () => {
    assert.deepEqual(await renderJsonTemplate('{"a": "{{ doc.constructor }}", "b": "{{ doc.__proto__ }}"}', doc), { a: '', b: '' });
  });
});
