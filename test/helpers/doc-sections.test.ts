import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { anchorSlugs, docReferences, docSections, markdownLinks, resolvesTo } from './doc-sections.js';

const DOC = [
  '# Title',
  '## Sessions and CSRF',
  '**Caching.** Everyone with the same roles…',
  '- **Schemas** per DocType',
  '```',
  '# => {"not":"a heading"}',
  '```',
  '## API (System Manager only)',
  '## `fw types`',
  '## Lists',
  '## Lists',
].join('\n');

describe('doc sections', () => {
  test('finds headings and bold lead-ins, but nothing inside a fenced code block', () => {
    assert.deepEqual(docSections(DOC), ['Title', 'Sessions and CSRF', 'API (System Manager only)', '`fw types`', 'Lists', 'Lists', 'Caching', 'Schemas']);
  });

  const cases: Array<[string, string, boolean]> = [
    ['Lists', 'Lists', true],
    ['lists', 'Lists', true],
    ['CSRF', 'Sessions and CSRF', true],
    ['API', 'API (System Manager only)', true],
    ['fw types', '`fw types`', true],
    ['Log', 'Logs', false],
    ['Logs', 'Sessions and CSRF', false],
    ['The HTTP layer', 'A request', false],
    ['', 'Lists', false],
  ];
  for (const [cited, section, expected] of cases) {
    test(`"${cited}" ${expected ? 'names' : 'does not name'} the section "${section}"`, () => {
      assert.equal(resolvesTo(cited, section), expected);
    });
  }

  test('reads citations with a comma, across a comment line break, and with their line', () => {
    const text = ['// see docs/api.md "Lists"', ' * (docs/security.md,', ' * "Sessions and CSRF")', 'docs/api.md without a section'].join('\n');
    assert.deepEqual(docReferences(text), [
      { doc: 'api.md', section: 'Lists', line: 1 },
      { doc: 'security.md', section: 'Sessions and CSRF', line: 2 },
    ]);
  });

  test('reads anchor links to another file and to the same file', () => {
    const text = 'See [passwords](security.md#passwords) and\n[below](#lists-1).';
    assert.deepEqual(markdownLinks(text), [
      { file: 'security.md', anchor: 'passwords', line: 1 },
      { file: '', anchor: 'lists-1', line: 2 },
    ]);
  });

  test('makes the anchors GitHub makes, numbering repeated headings', () => {
    assert.deepEqual([...anchorSlugs(DOC)], ['title', 'sessions-and-csrf', 'api-system-manager-only', 'fw-types', 'lists', 'lists-1']);
  });
});
