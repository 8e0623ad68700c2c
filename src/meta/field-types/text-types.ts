/**
 * The long text types (text column). Small Text, Text and Long Text are sanitised when they hold
 * markup; Code and the editors for source text keep their value verbatim, as do file URLs,
 * signatures (data URLs) and geolocations (GeoJSON text).
 */
import type { FieldType } from './field-type.js';
import { isEmptyMarkup, sanitizeHtml } from './html-sanitizer.js';
import { createStringType } from './string-type.js';

/** Small Text, Text, Long Text: free text, sanitised when it contains markup. */
export const sanitisedTextTypes: readonly FieldType[] = ['Small Text', 'Text', 'Long Text'].map((name) =>
  createStringType({ name, kind: 'text', transform: sanitizeHtml, isEmpty: isEmptyMarkup }),
);

/** Code, Markdown Editor, HTML Editor, Attach, Attach Image, Signature, Geolocation: verbatim text. */
export const verbatimTextTypes: readonly FieldType[] = [
  'Code',
  'Markdown Editor',
  'HTML Editor',
  'Attach',
  'Attach Image',
  'Signature',
  'Geolocation',
].map((name) => createStringType({ name, kind: 'text' }));
