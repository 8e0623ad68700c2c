// Reading fw's docs as a table of sections, for the test that every citation of them resolves
// (test/docs/doc-references.test.ts; the citation syntax is in CONTRIBUTING.md "Citing the docs").

/** A citation `docs/<file>.md "Section"` (a comma after the file name and a line break are allowed). */
export interface DocReference {
  readonly doc: string;
  readonly section: string;
  readonly line: number;
}

/** A Markdown link to an anchor: `[text](file.md#anchor)`, or `(#anchor)` within the same file. */
export interface AnchorLink {
  readonly file: string;
  readonly anchor: string;
  readonly line: number;
}

// The file name, an optional comma, then spaces, line breaks and comment markers (`//`, `*`, `#`)
// before the quoted section.
const REFERENCE = /docs\/([a-z0-9-]+\.md),?(?:\s|\/\/|\*|#)*"([^"\n]+)"/g;
const LINK = /\]\(((?:[a-z0-9-]+\/)*[a-z0-9-]+\.md)?#([^)\s]+)\)/g;

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The doc citations in a source or Markdown text. */
export function docReferences(text: string): DocReference[] {
  return [...text.matchAll(REFERENCE)].map((m) => ({ doc: m[1]!, section: m[2]!, line: lineAt(text, m.index) }));
}

/** The anchor links in a Markdown text. */
export function markdownLinks(text: string): AnchorLink[] {
  return [...text.matchAll(LINK)].map((m) => ({ file: m[1] ?? '', anchor: m[2]!, line: lineAt(text, m.index) }));
}

/** The lines of a Markdown text outside fenced code blocks (a `# =>` inside one is no heading). */
function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push(line);
  }
  return lines;
}

function headings(markdown: string): string[] {
  return proseLines(markdown)
    .map((line) => /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1])
    .filter((h): h is string => h !== undefined);
}

/**
 * The sections a citation may name: every heading, and every paragraph or list item that opens
 * with bold text (`**Caching.** Everyone with…`), which the docs use as a run-in heading.
 */
export function docSections(markdown: string): string[] {
  const leadIns = proseLines(markdown)
    .map((line) => /^(?:[-*]\s+)?\*\*([^*]+)\*\*/.exec(line)?.[1]?.replace(/[.:,]\s*$/, ''))
    .filter((s): s is string => s !== undefined);
  return [...headings(markdown), ...leadIns];
}

function normalise(s: string): string {
  return s.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Whether a cited section names this one: the cited words, in any case, are the section's name or
 * a phrase of it ("CSRF" names "Sessions and CSRF", "API" names "API (System Manager only)"), but
 * never a piece of a word ("Log" does not name "Logs").
 */
export function resolvesTo(cited: string, section: string): boolean {
  const want = normalise(cited);
  const name = normalise(section);
  if (want === '') return false;
  const escaped = want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(name);
}

/** The anchors GitHub gives a Markdown file's headings (lower case, punctuation dropped, spaces as `-`, repeats numbered). */
export function anchorSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const counts = new Map<string, number>();
  for (const heading of headings(markdown)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}
