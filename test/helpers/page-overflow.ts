import type { Page } from 'playwright-core';

/**
 * The elements that make the page scroll sideways: those reaching past the viewport's right edge
 * with no scrolling or clipping ancestor. Empty when the page fits (docs/admin-ui.md: nothing
 * scrolls sideways on a phone).
 */
export async function sidewaysOverflow(page: Page): Promise<string[]> {
  // One function with no inner named helpers: tsx would wrap those in a `__name` call the page lacks.
  return page.evaluate(() => {
    type El = { tagName: string; className: unknown; parentElement: El | null; getBoundingClientRect(): { right: number } };
    const g = globalThis as unknown as {
      document: { scrollingElement: { scrollWidth: number; clientWidth: number }; querySelectorAll(s: string): Iterable<El> };
      getComputedStyle(e: El): { overflowX: string };
    };
    const { scrollWidth, clientWidth } = g.document.scrollingElement;
    if (scrollWidth <= clientWidth) return [];
    return [...g.document.querySelectorAll('body *')]
      .filter((e) => {
        if (e.getBoundingClientRect().right <= clientWidth + 1) return false;
        for (let a = e.parentElement; a; a = a.parentElement) if (g.getComputedStyle(a).overflowX !== 'visible') return false;
        return true;
      })
      .slice(0, 5)
      .map((e) => `${e.tagName}.${String(e.className)}`);
  });
}
