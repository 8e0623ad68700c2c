/**
 * Nesting depth of request values, measured without recursion (docs/api.md "Requests and
 * answers"). Values nested thousands deep overflow the stack of whatever walks them recursively
 * later (validation, the error message, JSON.stringify of the stored text), so the HTTP edge
 * refuses them before any of that runs.
 */

/** The deepest nesting of arrays and objects a request value may have. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

const isOpen = (c: number) => c === OPEN_BRACKET || c === OPEN_BRACE;
const isClose = (c: number) => c === CLOSE_BRACKET || c === CLOSE_BRACE;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * True when `text`, read as JSON, nests arrays and objects deeper than `limit`: one pass over the
 * characters, whether or not the text parses. A string inside it that itself starts with `[` or
 * `{` (JSON sent as a JSON string: `{"filters": "[[...]]"}`, parsed again by the handler) is
 * measured on its own the same way.
 */
export function textNestingExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  // Inside a string: whether it looks like JSON text (first non-space character), and its depth.
  let atStringStart = false;
  let innerJson = false;
  let innerDepth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) {
        // An escape is a character of the string: one that starts it is no JSON text.
        atStringStart = false;
        i++;
        continue;
      }
      if (c === QUOTE) {
        inString = false;
        continue;
      }
      if (atStringStart) {
        if (isSpace(c)) continue;
        atStringStart = false;
        innerJson = isOpen(c);
      }
      if (!innerJson) continue;
      if (isOpen(c) && ++innerDepth > limit) return true;
      if (isClose(c)) innerDepth--;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      atStringStart = true;
      innerJson = false;
      innerDepth = 0;
    } else if (isOpen(c)) {
      if (++depth > limit) return true;
    } else if (isClose(c)) {
      depth--;
    }
  }
  return false;
}

/** A string that would be parsed as JSON by a handler: its first non-space character opens an array or object. */
function looksLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isSpace(c)) return isOpen(c);
  }
  return false;
}

const isPlainObject = (value: object) => {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * True when `value` (parsed arguments: plain objects, arrays, strings) nests deeper than `limit`,
 * counting its own arrays and objects, or holds a string of JSON text that does. Walked with a
 * stack of its own; objects of other classes (a staged upload) are not entered.
 */
export function valueNestingExceeds(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  // Two parallel stacks rather than one of pairs: a large body allocates nothing per value.
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (typeof current === 'string') {
      if (looksLikeJson(current) && textNestingExceeds(current, limit)) return true;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const isArray = Array.isArray(current);
    if (!isArray && !isPlainObject(current)) continue;
    if (depth + 1 > limit) return true;
    for (const item of isArray ? current : Object.values(current)) {
      values.push(item);
      depths.push(depth + 1);
    }
  }
  return false;
}
