/**
 * Webhook conditions: the common Python-like form of the reference's conditions
 * (`doc.status == "Open" and doc.priority in ["High", "Urgent"]`), parsed by a small grammar of our
 * own and evaluated over plain data. Nothing is ever handed to `eval` or `Function`: the only name
 * is `doc`, attribute access reads own properties only, and the only calls are `doc.get(...)` and
 * `len(...)` (docs/webhooks.md "Conditions").
 */

/** A condition that does not parse, or that fails while evaluated (a type mismatch). */
export class ConditionError extends Error {}

type Node =
  | { k: 'lit'; v: unknown }
  | { k: 'doc' }
  | { k: 'list'; items: Node[] }
  | { k: 'attr'; obj: Node; name: string }
  | { k: 'index'; obj: Node; index: Node }
  | { k: 'get'; obj: Node; args: Node[] }
  | { k: 'len'; arg: Node }
  | { k: 'not'; arg: Node }
  | { k: 'neg'; arg: Node }
  | { k: 'bool'; op: 'and' | 'or'; left: Node; right: Node }
  | { k: 'arith'; op: '+' | '-' | '*' | '/'; left: Node; right: Node }
  | { k: 'cmp'; ops: string[]; operands: Node[] };

type Token = { t: 'num'; v: number } | { t: 'str'; v: string } | { t: 'name'; v: string } | { t: 'op'; v: string } | { t: 'end' };

const MAX_LENGTH = 4000;
const MAX_DEPTH = 64;
const OPS = ['==', '!=', '<=', '>=', '<', '>', '(', ')', '[', ']', ',', '.', '+', '-', '*', '/'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i += 1;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i)) as RegExpExecArray;
      tokens.push({ t: 'num', v: Number(m[0]) });
      i += m[0].length;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let out = '';
      for (; j < text.length && text[j] !== c; j += 1) {
        if (text[j] === '\\' && j + 1 < text.length) {
          j += 1;
          out += ({ n: '\n', t: '\t', r: '\r' } as Record<string, string>)[text[j]] ?? text[j];
        } else out += text[j];
      }
      if (j >= text.length) throw new ConditionError(`Unterminated string starting at character ${i + 1}`);
      tokens.push({ t: 'str', v: out });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i)) as RegExpExecArray;
      tokens.push({ t: 'name', v: m[0] });
      i += m[0].length;
    } else {
      const op = OPS.find((o) => text.startsWith(o, i));
      if (!op) throw new ConditionError(`Unexpected character ${JSON.stringify(c)} at character ${i + 1}`);
      tokens.push({ t: 'op', v: op });
      i += op.length;
    }
  }
  tokens.push({ t: 'end' });
  return tokens;
}

class Parser {
  #pos = 0;
  #depth = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.#or();
    if (this.#peek().t !== 'end') throw new ConditionError(`Unexpected ${describe(this.#peek())} after the expression`);
    return node;
  }

  #peek(offset = 0): Token {
    return this.tokens[Math.min(this.#pos + offset, this.tokens.length - 1)];
  }
  #next(): Token {
    const token = this.#peek();
    this.#pos += 1;
    return token;
  }
  #isOp(v: string, offset = 0): boolean {
    const t = this.#peek(offset);
    return t.t === 'op' && t.v === v;
  }
  #isName(v: string, offset = 0): boolean {
    const t = this.#peek(offset);
    return t.t === 'name' && t.v === v;
  }
  #expectOp(v: string): void {
    if (!this.#isOp(v)) throw new ConditionError(`Expected "${v}" but found ${describe(this.#peek())}`);
    this.#pos += 1;
  }
  #nested<T>(parse: () => T): T {
    this.#depth += 1;
    if (this.#depth > MAX_DEPTH) throw new ConditionError('The condition is nested too deeply');
    try {
      return parse();
    } finally {
      this.#depth -= 1;
    }
  }

  #or(): Node {
    let left = this.#and();
    while (this.#isName('or')) {
      this.#next();
      left = { k: 'bool', op: 'or', left, right: this.#and() };
    }
    return left;
  }
  #and(): Node {
    let left = this.#not();
    while (this.#isName('and')) {
      this.#next();
      left = { k: 'bool', op: 'and', left, right: this.#not() };
    }
    return left;
  }
  #not(): Node {
    if (this.#isName('not')) {
      this.#next();
      return this.#nested(() => ({ k: 'not', arg: this.#not() }));
    }
    return this.#comparison();
  }
  #comparison(): Node {
    const operands = [this.#additive()];
    const ops: string[] = [];
    for (;;) {
      const t = this.#peek();
      let op: string | undefined;
      if (t.t === 'op' && ['==', '!=', '<', '>', '<=', '>='].includes(t.v)) op = t.v;
      else if (this.#isName('in')) op = 'in';
      else if (this.#isName('not') && this.#isName('in', 1)) op = 'not in';
      else if (this.#isName('is')) op = this.#isName('not', 1) ? 'is not' : 'is';
      if (!op) break;
      this.#pos += op.includes(' ') ? 2 : 1;
      ops.push(op);
      operands.push(this.#additive());
    }
    return ops.length === 0 ? operands[0] : { k: 'cmp', ops, operands };
  }
  #additive(): Node {
    let left = this.#term();
    while (this.#isOp('+') || this.#isOp('-')) {
      const op = (this.#next() as { v: '+' | '-' }).v;
      left = { k: 'arith', op, left, right: this.#term() };
    }
    return left;
  }
  #term(): Node {
    let left = this.#unary();
    while (this.#isOp('*') || this.#isOp('/')) {
      const op = (this.#next() as { v: '*' | '/' }).v;
      left = { k: 'arith', op, left, right: this.#unary() };
    }
    return left;
  }
  #unary(): Node {
    if (this.#isOp('-')) {
      this.#next();
      return this.#nested(() => ({ k: 'neg', arg: this.#unary() }));
    }
    return this.#postfix();
  }
  #postfix(): Node {
    let node = this.#primary();
    for (;;) {
      if (this.#isOp('.')) {
        this.#next();
        const name = this.#next();
        if (name.t !== 'name') throw new ConditionError(`Expected a field name after "." but found ${describe(name)}`);
        if (name.v === 'get' && this.#isOp('(')) {
          this.#next();
          const args = this.#arguments();
          if (args.length < 1 || args.length > 2) throw new ConditionError('get() takes a field name and an optional default');
          node = { k: 'get', obj: node, args };
        } else {
          node = { k: 'attr', obj: node, name: name.v };
        }
      } else if (this.#isOp('[')) {
        this.#next();
        const index = this.#nested(() => this.#or());
        this.#expectOp(']');
        node = { k: 'index', obj: node, index };
      } else return node;
    }
  }
  #arguments(): Node[] {
    const args: Node[] = [];
    while (!this.#isOp(')')) {
      args.push(this.#nested(() => this.#or()));
      if (!this.#isOp(',')) break;
      this.#next();
    }
    this.#expectOp(')');
    return args;
  }
  #primary(): Node {
    const t = this.#next();
    if (t.t === 'num' || t.t === 'str') return { k: 'lit', v: t.v };
    if (t.t === 'name') {
      if (t.v === 'True' || t.v === 'true') return { k: 'lit', v: true };
      if (t.v === 'False' || t.v === 'false') return { k: 'lit', v: false };
      if (t.v === 'None' || t.v === 'null') return { k: 'lit', v: null };
      if (t.v === 'doc') return { k: 'doc' };
      if (t.v === 'len' && this.#isOp('(')) {
        this.#next();
        const args = this.#arguments();
        if (args.length !== 1) throw new ConditionError('len() takes one argument');
        return { k: 'len', arg: args[0] };
      }
      throw new ConditionError(`Unknown name "${t.v}": a condition can use doc, literals, and, or, not, in, is, len() and doc.get()`);
    }
    if (t.t === 'op' && t.v === '(') {
      const inner = this.#nested(() => this.#or());
      if (this.#isOp(',')) return this.#listRest([inner], ')');
      this.#expectOp(')');
      return inner;
    }
    if (t.t === 'op' && t.v === '[') return this.#listRest([], ']');
    throw new ConditionError(`Unexpected ${describe(t)}`);
  }
  #listRest(items: Node[], close: string): Node {
    for (;;) {
      if (this.#isOp(',')) this.#next();
      if (this.#isOp(close)) break;
      items.push(this.#nested(() => this.#or()));
      if (!this.#isOp(',') && !this.#isOp(close)) throw new ConditionError(`Expected "," or "${close}" but found ${describe(this.#peek())}`);
    }
    this.#expectOp(close);
    return { k: 'list', items };
  }
}

function describe(t: Token): string {
  return t.t === 'end' ? 'the end of the condition' : JSON.stringify(t.v);
}

/** A parsed condition, ready to be evaluated against documents. */
export interface Condition {
  readonly source: string;
  matches(doc: Readonly<Record<string, unknown>>): boolean;
}

/** Parses a condition; an empty one matches every document. Throws ConditionError with the reason. */
export function parseCondition(source: string): Condition {
  const text = source.trim();
  if (text === '') return { source, matches: () => true };
  if (text.length > MAX_LENGTH) throw new ConditionError(`A condition is at most ${MAX_LENGTH} characters`);
  const ast = new Parser(tokenize(text)).parse();
  return { source, matches: (doc) => truthy(evaluate(ast, doc)) };
}

function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function own(obj: unknown, key: unknown): unknown {
  if (typeof key !== 'string' && typeof key !== 'number') return null;
  if (Array.isArray(obj) && typeof key === 'number') return obj.at(key) ?? null;
  if (obj === null || typeof obj !== 'object' || !Object.hasOwn(obj, String(key))) return null;
  return (obj as Record<string, unknown>)[String(key)] ?? null;
}

/** Python's numbers include booleans (True == 1). */
function num(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

function equal(a: unknown, b: unknown): boolean {
  const na = num(a);
  const nb = num(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  return (a ?? null) === (b ?? null);
}

function order(op: string, a: unknown, b: unknown): boolean {
  const na = num(a);
  const nb = num(b);
  let c: number;
  if (na !== undefined && nb !== undefined) c = na - nb;
  else if (typeof a === 'string' && typeof b === 'string') c = a < b ? -1 : a > b ? 1 : 0;
  else throw new ConditionError(`Cannot compare ${typeName(a)} with ${typeName(b)} using ${op}`);
  return op === '<' ? c < 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c >= 0;
}

function contains(container: unknown, item: unknown): boolean {
  if (Array.isArray(container)) return container.some((x) => equal(x, item));
  if (typeof container === 'string') return typeof item === 'string' && container.includes(item);
  if (container !== null && typeof container === 'object') return typeof item === 'string' && Object.hasOwn(container, item);
  throw new ConditionError(`"in" needs a list, text or object on its right, not ${typeName(container)}`);
}

function typeName(v: unknown): string {
  return v === null || v === undefined ? 'None' : Array.isArray(v) ? 'a list' : typeof v;
}

function compare(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case '==':
      return equal(a, b);
    case '!=':
      return !equal(a, b);
    case 'in':
      return contains(b, a);
    case 'not in':
      return !contains(b, a);
    case 'is':
      return (a ?? null) === (b ?? null);
    case 'is not':
      return (a ?? null) !== (b ?? null);
    default:
      return order(op, a, b);
  }
}

function evaluate(node: Node, doc: unknown): unknown {
  switch (node.k) {
    case 'lit':
      return node.v;
    case 'doc':
      return doc;
    case 'list':
      return node.items.map((n) => evaluate(n, doc));
    case 'attr':
      return own(evaluate(node.obj, doc), node.name);
    case 'index':
      return own(evaluate(node.obj, doc), evaluate(node.index, doc));
    case 'get': {
      const value = own(evaluate(node.obj, doc), evaluate(node.args[0], doc));
      return value ?? (node.args[1] ? evaluate(node.args[1], doc) : null);
    }
    case 'len': {
      const v = evaluate(node.arg, doc);
      if (typeof v === 'string' || Array.isArray(v)) return v.length;
      if (v !== null && typeof v === 'object') return Object.keys(v).length;
      throw new ConditionError(`len() of ${typeName(v)}`);
    }
    case 'not':
      return !truthy(evaluate(node.arg, doc));
    case 'neg': {
      const v = num(evaluate(node.arg, doc));
      if (v === undefined) throw new ConditionError('"-" needs a number');
      return -v;
    }
    case 'bool': {
      const left = evaluate(node.left, doc);
      if (node.op === 'and') return truthy(left) ? evaluate(node.right, doc) : left;
      return truthy(left) ? left : evaluate(node.right, doc);
    }
    case 'arith': {
      const a = evaluate(node.left, doc);
      const b = evaluate(node.right, doc);
      if (node.op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
      const na = num(a);
      const nb = num(b);
      if (na === undefined || nb === undefined) throw new ConditionError(`"${node.op}" needs numbers, got ${typeName(a)} and ${typeName(b)}`);
      if (node.op === '/' && nb === 0) throw new ConditionError('Division by zero');
      return node.op === '+' ? na + nb : node.op === '-' ? na - nb : node.op === '*' ? na * nb : na / nb;
    }
    case 'cmp': {
      let left = evaluate(node.operands[0], doc);
      for (let i = 0; i < node.ops.length; i += 1) {
        const right = evaluate(node.operands[i + 1], doc);
        if (!compare(node.ops[i], left, right)) return false;
        left = right;
      }
      return true;
    }
  }
}
