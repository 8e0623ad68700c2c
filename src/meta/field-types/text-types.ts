/**
 * The long text types (text column). Small Text, Text and Long Text are sanitised when they hold
 * markup; Code and the editors for source text keep their value verbatim, as do signatures (data
 * URLs) and geolocations (GeoJSON text); file URLs are kept verbatim once their scheme is checked.
 */
import type { FieldType } from './field-type.js';
import { validateAttachUrl } from './data-options.js';
import { isEmptyMarkup, sanitizeHtml } from './html-sanitizer.js';
import { createStringType } from './string-type.js';

/** Small Text, Text, Long Text: free text, sanitised when it contains markup. */
export const sanitisedTextTypes: readonly FieldType[] = ['Small Text', 'Text', 'Long Text'].map((name) =>
  createStringType({ name, kind: 'text', transform: sanitizeHtml, isEmpty: isEmptyMarkup }),
);

/** Code, Markdown Editor, HTML Editor, Signature, Geolocation: verbatim text. */
export const verbatimTextTypes: readonly FieldType[] = ['Code', 'Markdown Editor', 'HTML Editor', 'Signature', 'Geolocation'].map((name) =>
  createStringType({ name, kind: 'text' }),
);

/** Attach, Attach Image: a file URL kept verbatim, refused when its scheme is not http(s). */
export const attachTypes: readonly FieldType[] = ['Attach', 'Attach Image'].map((name) => createStringType({ name, kind: 'text', check: validateAttachUrl }));
