/**
 * HTML sanitising for Text Editor and the plain text types: ordinary formatting survives, scripts
 * in any form (script elements, on* handlers, javascript: URLs, CSS url()) do not.
 */
import sanitize from 'sanitize-html';

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'];
const TABLE_TAGS = ['table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption', 'colgroup', 'col'];
const ALLOWED_TAGS = [
  ...['p', 'br', 'hr', 'b', 'i', 'u', 's', 'strike', 'strong', 'em', 'small', 'sub', 'sup', 'mark'],
  ...['a', 'ul', 'ol', 'li', 'blockquote', 'pre', 'code', 'span', 'div', 'img', 'label'],
  ...HEADINGS,
  ...TABLE_TAGS,
];

// A style value may not call functions other than colour ones (no url(), no expression()).
const SAFE_STYLE_VALUE = /^(?:[-#%,.\w\s'"/!]|(?:rgba?|hsla?)\([-\d\s.,%/]*\))*$/i;
const STYLE_PROPERTIES = [
  'color',
  'background-color',
  'text-align',
  'text-decoration',
  'text-indent',
  'font-size',
  'font-weight',
  'font-style',
  'font-family',
  'line-height',
  'vertical-align',
  'white-space',
  'list-style-type',
  'width',
  'height',
  'max-width',
  'border',
  'border-collapse',
  'margin',
  'margin-left',
  'margin-right',
  'margin-top',
  'margin-bottom',
  'padding',
  'padding-left',
  'padding-right',
  'padding-top',
  'padding-bottom',
];

const OPTIONS: sanitize.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: {
    '*': ['class', 'style', 'title'],
    a: ['href', 'target', 'rel', 'name'],
    img: ['src', 'alt', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowedStyles: { '*': Object.fromEntries(STYLE_PROPERTIES.map((p) => [p, [SAFE_STYLE_VALUE]])) },
  // Elements whose content is code or is never shown are dropped with their content.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'title', 'iframe', 'object'],
};

// The HTML tokenizer only opens a tag (or comment) on `<` followed by a letter, `/`, `!` or `?`;
// any other `<` is text, so "1 < 2" needs no sanitising and is kept verbatim.
const MARKUP = /<[a-zA-Z/!?]/;

/** True when `text` contains something a browser would read as a tag or comment. */
export function containsMarkup(text: string): boolean {
  return MARKUP.test(text);
}

/** `text` with everything unsafe removed; text without markup is returned unchanged. */
export function sanitizeHtml(text: string): string {
  return containsMarkup(text) ? sanitize(text, OPTIONS) : text;
}

const IMAGE = /<img\b/i;
const TAG = /<[^>]*>/g;
const NBSP = /&nbsp;|&#160;|&#xa0;/gi;

/** True when `value` holds no text and no image once markup is stripped (e.g. `<p><br></p>`). */
export function isEmptyMarkup(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (IMAGE.test(value)) return false;
  return value.replace(TAG, '').replace(NBSP, ' ').trim() === '';
}
