import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocField } from '../doctype.js';
import type { FieldContext } from './field-type.js';
import { containsMarkup, isEmptyMarkup, sanitizeHtml } from './html-sanitizer.js';
import { textEditorType } from './text-editor-type.js';

const ctx: FieldContext = { doctype: 'Note', timeZone: 'UTC', user: 'jane@example.com' };
const field: DocField = { fieldname: 'content', label: 'Content', fieldtype: 'Text Editor' };
const write = (value: unknown): unknown => textEditorType.coerce(value, field, ctx);

describe('Text Editor sanitising', () => {
  test('drops script elements and event handlers but keeps the paragraph and its text', () => {
    const out = write('<p onclick="x">a<script>alert(1)</script></p>');
    assert.equal(out, '<p>a</p>');
  });

  const removed: [string, string, RegExp][] = [
    ['javascript: links', '<a href="javascript:alert(1)">x</a>', /javascript/i],
    ['mixed-case javascript: links', '<a href="JaVaScRiPt:alert(1)">x</a>', /javascript/i],
    ['entity-obfuscated javascript: links', '<a href="jav&#x09;ascript:alert(1)">x</a>', /ascript/i],
    ['onerror handlers on images', '<img src="https://e.com/x.png" onerror="alert(1)">', /onerror/],
    ['images with javascript: sources', '<img src="javascript:alert(1)">', /javascript/],
    ['CSS url() in styles', '<span style="background: url(javascript:alert(1))">x</span>', /url\(/],
    ['iframes and their content', '<iframe src="https://evil.example">inner</iframe>', /iframe|inner/],
    ['style elements and their content', '<style>p { color: red }</style>', /style|color/],
    ['svg with embedded script', '<svg><script>alert(1)</script></svg>', /svg|script|alert/],
    ['forms and inputs', '<form action="/x"><input name="a"></form>', /form|input/],
  ];
  for (const [what, input, forbidden] of removed) {
    test(`removes ${what}`, () => {
      assert.doesNotMatch(write(input) as string, forbidden);
    });
  }

  const kept: [string, string][] = [
    ['inline formatting', '<p><b>b</b> <i>i</i> <u>u</u> <strong>s</strong> <em>e</em><br /></p>'],
    ['links with http URLs', '<a href="https://example.com" target="_blank">x</a>'],
    ['relative links', '<a href="/app/todo/1">x</a>'],
    ['lists', '<ul><li>a</li></ul><ol><li>b</li></ol>'],
    ['headings', '<h1>a</h1><h2>b</h2><h6>c</h6>'],
    ['quotes and code', '<blockquote>q</blockquote><pre><code>x &lt; y</code></pre>'],
    ['span and div with class and style', '<div class="ql-align-center"><span style="color:red">x</span></div>'],
    ['images with https and data sources', '<img src="https://e.com/a.png" /><img src="data:image/png;base64,AAAA" />'],
    ['tables', '<table><thead><tr><th>h</th></tr></thead><tbody><tr><td colspan="2">d</td></tr></tbody></table>'],
  ];
  for (const [what, input] of kept) {
    test(`keeps ${what}`, () => {
      assert.equal(write(input), input);
    });
  }

  test('leaves plain text without markup untouched', () => {
    assert.equal(write('Tom & Jerry: 1 < 2'), 'Tom & Jerry: 1 < 2');
    assert.equal(containsMarkup('1 < 2'), false);
    assert.equal(containsMarkup('a<b'), true);
    assert.equal(sanitizeHtml('<!-- hidden --><p>x</p>'), '<p>x</p>');
  });
});

describe('Text Editor emptiness', () => {
  const empty = ['', '   ', '<p><br></p>', '<p></p>\n<p> &nbsp; </p>', '<div><span></span></div>'];
  for (const value of empty) {
    test(`counts ${JSON.stringify(value)} as missing`, () => {
      assert.equal(textEditorType.isEmpty?.(value), true);
      assert.equal(isEmptyMarkup(value), true);
    });
  }
  const filled = ['<p>a</p>', 'text', '<p><img src="https://e.com/a.png"></p>'];
  for (const value of filled) {
    test(`counts ${JSON.stringify(value)} as present`, () => {
      assert.equal(textEditorType.isEmpty?.(value), false);
    });
  }
});
