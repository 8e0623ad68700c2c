import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anchorSlugs, docReferences, docSections, markdownLinks, resolvesTo } from '../helpers/doc-sections.js';

/*
 * Every citation of fw's own docs must lead somewhere (CONTRIBUTING.md "Citing the docs"): a
 * `docs/<file>.md "Section"` reference in code, tests, benchmarks, the UI or the docs names a
 * heading (or a bold paragraph lead-in) of that file, and a Markdown link `file.md#anchor` in the
 * docs names a heading's anchor.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src', 'test', 'bench', 'ui/src', 'scripts', 'docs', 'examples'];
const SCANNED_FILES = ['README.md', 'CONTRIBUTING.md'];

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist') continue;
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.(ts|vue|mjs|js|md)$/.test(entry)) out.push(path);
  }
  return out;
}

function sourceFiles(): string[] {
  const files = SCANNED.flatMap((dir) => (existsSync(join(ROOT, dir)) ? walk(join(ROOT, dir), []) : []));
  return [...files, ...SCANNED_FILES.map((f) => join(ROOT, f)).filter((f) => existsSync(f))];
}

const sectionsCache = new Map<string, string[] | undefined>();
function sectionsOf(docPath: string): string[] | undefined {
  if (!sectionsCache.has(docPath)) sectionsCache.set(docPath, existsSync(docPath) ? docSections(readFileSync(docPath, 'utf8')) : undefined);
  return sectionsCache.get(docPath);
}

describe('citations of the docs', () => {
  const files = sourceFiles();

  test('every docs/<file>.md "Section" reference names a section that exists in that file', () => {
    const broken: string[] = [];
    let seen = 0;
    for (const file of files) {
      for (const ref of docReferences(readFileSync(file, 'utf8'))) {
        seen++;
        const sections = sectionsOf(join(ROOT, 'docs', ref.doc));
        const where = `${relative(ROOT, file)}:${ref.line}`;
        if (!sections) broken.push(`${where}: docs/${ref.doc} does not exist`);
        else if (!sections.some((s) => resolvesTo(ref.section, s))) broken.push(`${where}: docs/${ref.doc} has no section "${ref.section}"`);
      }
    }
    // The scan itself must find the citations, or an empty pass would prove nothing.
    assert.ok(seen > 100, `only ${seen} references found: the pattern no longer matches how the code cites the docs`);
    assert.deepEqual(broken, [], `broken doc references:\n${broken.join('\n')}`);
  });

  test('every Markdown link to a #anchor in the docs names a heading of the linked file', () => {
    const broken: string[] = [];
    let seen = 0;
    for (const file of files.filter((f) => f.endsWith('.md'))) {
      for (const link of markdownLinks(readFileSync(file, 'utf8'))) {
        seen++;
        const target = link.file === '' ? file : join(file, '..', link.file);
        const where = `${relative(ROOT, file)}:${link.line}`;
        if (!existsSync(target)) broken.push(`${where}: ${link.file} does not exist`);
        else if (!anchorSlugs(readFileSync(target, 'utf8')).has(link.anchor)) broken.push(`${where}: ${relative(ROOT, target)} has no #${link.anchor}`);
      }
    }
    assert.ok(seen > 0, 'no anchor links found: the pattern no longer matches');
    assert.deepEqual(broken, [], `broken anchor links:\n${broken.join('\n')}`);
  });
});
