/**
 * Text a spreadsheet would read as a formula starts with one of these (OWASP "CSV Injection"):
 * `=`, `+`, `-`, `@`, and a tab or carriage return that some programs skip before them.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV cell's text made inert: text that a spreadsheet would take for a formula gets a leading
 * apostrophe, which spreadsheets read as "this is text" (docs/import-export.md "Formula injection").
 */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
