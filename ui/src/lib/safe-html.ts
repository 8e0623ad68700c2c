import DOMPurify, { type Config } from 'dompurify';

/*
 * The one way the UI turns text from the server (or the clipboard) into markup (docs/admin-ui.md
 * "Security"): fw sanitises Text Editor values when they are saved, but a value stored before
 * its field became a Text Editor, written by an older version, or put in the database by other
 * means never passed that check. So the browser sanitises again before any assignment to
 * innerHTML: formatting stays; scripts, event handlers, javascript: URLs, frames (an
 * `<iframe srcdoc>` inherits this origin), objects, embeds, forms, meta, base, links and styles go.
 */
const CONFIG: Config = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'script',
    'iframe',
    'frame',
    'frameset',
    'object',
    'embed',
    'applet',
    'portal',
    'fencedframe',
    'form',
    'input',
    'button',
    'select',
    'textarea',
    'option',
    'meta',
    'base',
    'link',
    'style',
    'template',
    'noscript',
  ],
  FORBID_ATTR: ['srcdoc', 'action', 'formaction', 'ping', 'background', 'poster', 'xlink:href'],
  ALLOW_DATA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
};

/** `html` with everything that could run, load a page or submit anything removed. */
export function safeHtml(html: string | null | undefined): string {
  if (!html) return '';
  return DOMPurify.sanitize(html, { ...CONFIG, RETURN_TRUSTED_TYPE: false }) as string;
}
