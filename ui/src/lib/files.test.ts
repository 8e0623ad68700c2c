import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileHref, fileKind, humanSize, isImage, isPdf } from './files';

test('sizes read in binary units with at most one decimal', () => {
  assert.equal(humanSize(0), '0 B');
  assert.equal(humanSize(1023), '1023 B');
  assert.equal(humanSize(1536), '1.5 KB');
  assert.equal(humanSize(1024 * 1024), '1 MB');
  assert.equal(humanSize(150 * 1024 * 1024), '150 MB');
  assert.equal(humanSize(null), '');
  assert.equal(humanSize('x'), '');
  assert.equal(humanSize(-1), '');
});

test('the kind comes from the stored type, else the extension', () => {
  assert.equal(fileKind('png', 'a.jpg'), 'PNG');
  assert.equal(fileKind('', 'report.final.pdf'), 'PDF');
  assert.equal(fileKind(null, 'README'), '');
  assert.equal(fileKind(undefined, 'dot.'), '');
});

test('images and PDFs are previewed, SVG is not', () => {
  assert.ok(isImage('PNG'));
  assert.ok(isImage('JPEG'));
  assert.ok(!isImage('SVG'));
  assert.ok(isPdf('PDF'));
  assert.ok(!isPdf('PNG'));
});

test('only fw file paths and web addresses become links', () => {
  assert.equal(fileHref('/files/a.png'), '/files/a.png');
  assert.equal(fileHref('/private/files/b.pdf'), '/private/files/b.pdf');
  assert.equal(fileHref('https://cdn.example.com/x.png'), 'https://cdn.example.com/x.png');
  assert.equal(fileHref('javascript:alert(1)'), undefined);
  assert.equal(fileHref(' javascript:alert(1)'), undefined);
  assert.equal(fileHref('data:text/html,<script>1</script>'), undefined);
  assert.equal(fileHref('//evil.example.com/x'), undefined);
  assert.equal(fileHref(null), undefined);
});
