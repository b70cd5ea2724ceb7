/**
 * SCIM filters and PATCH paths (RFC 7644 §3.4.2.2 and §3.5.2): parsed into a small tree that is either compiled to
 * SQL (list queries, scim-sql.ts) or evaluated against one resource's JSON (value filters in PATCH paths).
 * Attribute names are case-insensitive; they are kept lowercased in the tree.
 */

export type CompareOp = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'ge' | 'lt' | 'le';
export type FilterValue = string | number | boolean | null;

/** `urn:…:User:name.givenName` is `{ uri: 'urn:…:user', attr: 'name', sub: 'givenname' }`. */
export interface AttrPath {
  uri?: string;
  attr: string;
  sub?: string;
  /** The names as written, for a PATCH that adds an attribute the resource does not have yet. */
  written: { attr: string; sub?: string };
}

export type Filter =
  | { kind: 'compare'; path: AttrPath; op: CompareOp; value: FilterValue }
  | { kind: 'present'; path: AttrPath }
  | { kind: 'and' | 'or'; left: Filter; right: Filter }
  | { kind: 'not'; filter: Filter }
  /** `emails[type eq "work"]`: the inner filter applies to each element of the multi-valued attribute. */
  | { kind: 'valuePath'; path: AttrPath; filter: Filter };

/** A PATCH target: an attribute, an element selection `members[value eq "…"]`, and optionally a sub-attribute of it. */
export interface PatchPath {
  path: AttrPath;
  filter?: Filter;
  /** The sub-attribute after the filter (lowercased), and as written. */
  sub?: string;
  writtenSub?: string;
}

/** A filter or path SCIM cannot read: answered 400 with scimType invalidFilter (or invalidPath for PATCH paths). */
export class ScimSyntaxError extends Error {}

const COMPARE_OPS = new Set<string>(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);
const MAX_FILTER_LENGTH = 4096;
const MAX_DEPTH = 32;

type Token =
  | { type: 'word'; text: string; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: '(' | ')' | '[' | ']'; at: number };

function tokenize(input: string): Token[] {
  if (input.length > MAX_FILTER_LENGTH) throw new ScimSyntaxError(`longer than ${MAX_FILTER_LENGTH} characters`);
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (c === '(' || c === ')' || c === '[' || c === ']') {
      tokens.push({ type: c, at: i });
      i++;
    } else if (c === '"') {
      const end = closingQuote(input, i);
      try {
        tokens.push({ type: 'string', value: JSON.parse(input.slice(i, end + 1)) as string, at: i });
      } catch {
        throw new ScimSyntaxError(`malformed string at position ${i + 1}`);
      }
      i = end + 1;
    } else {
      const start = i;
      while (i < input.length && !' \t\n\r()[]"'.includes(input[i])) i++;
      tokens.push({ type: 'word', text: input.slice(start, i), at: start });
    }
  }
  return tokens;
}

function closingQuote(input: string, open: number): number {
  for (let i = open + 1; i < input.length; i++) {
    if (input[i] === '\\') i++;
    else if (input[i] === '"') return i;
  }
  throw new ScimSyntaxError(`unterminated string at position ${open + 1}`);
}

const ATTR_NAME = /^[A-Za-z][\w$-]*$/;

/** Reads `[urn:…:]name[.sub]`; a URN's own dots (`core:2.0:User`) belong to the URN, not the attribute. */
export function parseAttrPath(text: string): AttrPath {
  const colon = text.lastIndexOf(':');
  const uri = colon >= 0 ? text.slice(0, colon).toLowerCase() : undefined;
  const rest = colon >= 0 ? text.slice(colon + 1) : text;
  const [attr, sub, extra] = rest.split('.');
  if (extra !== undefined || !ATTR_NAME.test(attr ?? '') || (sub !== undefined && !ATTR_NAME.test(sub))) {
    throw new ScimSyntaxError(`"${text}" is not an attribute path`);
  }
  if (uri !== undefined && !uri.startsWith('urn:')) throw new ScimSyntaxError(`"${text}" is not an attribute path`);
  return { uri, attr: attr.toLowerCase(), sub: sub?.toLowerCase(), written: { attr, sub } };
}

function literal(token: Token | undefined): FilterValue {
  if (!token) throw new ScimSyntaxError('a comparison value is missing');
  if (token.type === 'string') return token.value;
  if (token.type !== 'word') throw new ScimSyntaxError(`a comparison value is expected at position ${token.at + 1}`);
  const word = token.text.toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(token.text)) return Number(token.text);
  throw new ScimSyntaxError(`"${token.text}" is not a value (strings are written in double quotes)`);
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  atEnd(): boolean {
    return this.position >= this.tokens.length;
  }

  peek(): Token | undefined {
    return this.tokens[this.position];
  }

  next(): Token | undefined {
    return this.tokens[this.position++];
  }

  private isWord(token: Token | undefined, word: string): boolean {
    return token?.type === 'word' && token.text.toLowerCase() === word;
  }

  private expect(type: ')' | ']' | '('): void {
    const token = this.next();
    if (token?.type !== type) throw new ScimSyntaxError(`"${type}" expected${token ? ` at position ${token.at + 1}` : ' at the end'}`);
  }

  filter(): Filter {
    if (++this.depth > MAX_DEPTH) throw new ScimSyntaxError(`nested deeper than ${MAX_DEPTH} levels`);
    let left = this.conjunction();
    while (this.isWord(this.peek(), 'or')) {
      this.next();
      left = { kind: 'or', left, right: this.conjunction() };
    }
    this.depth--;
    return left;
  }

  private conjunction(): Filter {
    let left = this.unary();
    while (this.isWord(this.peek(), 'and')) {
      this.next();
      left = { kind: 'and', left, right: this.unary() };
    }
    return left;
  }

  private unary(): Filter {
    const token = this.peek();
    if (this.isWord(token, 'not') && this.tokens[this.position + 1]?.type === '(') {
      this.next();
      return { kind: 'not', filter: this.grouped() };
    }
    if (token?.type === '(') return this.grouped();
    return this.attributeExpression();
  }

  private grouped(): Filter {
    this.expect('(');
    const inner = this.filter();
    this.expect(')');
    return inner;
  }

  private attributeExpression(): Filter {
    const token = this.next();
    if (token?.type !== 'word') throw new ScimSyntaxError(token ? `an attribute is expected at position ${token.at + 1}` : 'the filter ends too early');
    const path = parseAttrPath(token.text);
    if (this.peek()?.type === '[') {
      this.next();
      const inner = this.filter();
      this.expect(']');
      const after = this.peek();
      // Microsoft Entra ID writes `emails[type eq "work"].value eq "a@b"`, which RFC 7644's grammar lacks: a comparison
      // of a sub-attribute of the selected elements, the same as `emails[type eq "work" and value eq "a@b"]`.
      if (after?.type === 'word' && after.text.startsWith('.')) {
        this.next();
        const sub = parseAttrPath(after.text.slice(1));
        if (sub.sub) throw new ScimSyntaxError(`"${after.text}": one sub-attribute may follow "]"`);
        return { kind: 'valuePath', path, filter: { kind: 'and', left: inner, right: this.comparison(sub, after.text.slice(1)) } };
      }
      return { kind: 'valuePath', path, filter: inner };
    }
    return this.comparison(path, token.text);
  }

  /** The operator and value after an attribute path: `eq "x"`, `pr`, … */
  private comparison(path: AttrPath, written: string): Filter {
    const op = this.next();
    if (op?.type !== 'word') throw new ScimSyntaxError(`an operator is expected after "${written}"`);
    const name = op.text.toLowerCase();
    if (name === 'pr') return { kind: 'present', path };
    if (!COMPARE_OPS.has(name)) throw new ScimSyntaxError(`"${op.text}" is not an operator (eq, ne, co, sw, ew, gt, ge, lt, le, pr)`);
    return { kind: 'compare', path, op: name as CompareOp, value: literal(this.next()) };
  }
}

/** Parses a `filter` query parameter; throws ScimSyntaxError with a reason a person can act on. */
export function parseFilter(text: string): Filter {
  const parser = new Parser(tokenize(text));
  if (parser.atEnd()) throw new ScimSyntaxError('the filter is empty');
  const filter = parser.filter();
  const rest = parser.peek();
  if (rest) throw new ScimSyntaxError(`unexpected "${rest.type === 'word' ? rest.text : rest.type === 'string' ? rest.value : rest.type}" at position ${rest.at + 1}`);
  return filter;
}

/** Parses a PATCH `path`: `attr`, `attr.sub`, `attr[filter]` or `attr[filter].sub`, optionally URN-prefixed. */
export function parsePatchPath(text: string): PatchPath {
  const open = text.indexOf('[');
  if (open < 0) {
    const path = parseAttrPath(text.trim());
    return { path };
  }
  const close = text.lastIndexOf(']');
  if (close < open) throw new ScimSyntaxError(`"${text}": "]" expected`);
  const path = parseAttrPath(text.slice(0, open).trim());
  if (path.sub) throw new ScimSyntaxError(`"${text}": a value filter applies to a multi-valued attribute, not a sub-attribute`);
  const after = text.slice(close + 1).trim();
  if (after && !/^\.[A-Za-z][\w$-]*$/.test(after)) throw new ScimSyntaxError(`"${text}": only ".subAttribute" may follow "]"`);
  return { path, filter: parseFilter(text.slice(open + 1, close)), sub: after ? after.slice(1).toLowerCase() : undefined, writtenSub: after ? after.slice(1) : undefined };
}

/* ---------- Evaluation against one resource (PATCH value filters) ---------- */

/** The member of `object` named `name` regardless of case (SCIM attribute names are case-insensitive). */
export function member(object: unknown, name: string): unknown {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return undefined;
  const key = Object.keys(object).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : (object as Record<string, unknown>)[key];
}

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);

function compareOne(actual: unknown, op: CompareOp, expected: FilterValue, caseExact: boolean): boolean {
  if (expected === null) return op === 'eq' ? isEmpty(actual) : op === 'ne' ? !isEmpty(actual) : false;
  if (actual === undefined || actual === null) return op === 'ne';
  if (typeof expected === 'boolean' || typeof actual === 'boolean') {
    const equal = String(actual).toLowerCase() === String(expected).toLowerCase();
    return op === 'eq' ? equal : op === 'ne' ? !equal : false;
  }
  if (typeof expected === 'number' && typeof actual === 'number') {
    return { eq: actual === expected, ne: actual !== expected, gt: actual > expected, ge: actual >= expected, lt: actual < expected, le: actual <= expected, co: false, sw: false, ew: false }[op];
  }
  const a = caseExact ? String(actual) : String(actual).toLowerCase();
  const e = caseExact ? String(expected) : String(expected).toLowerCase();
  switch (op) {
    case 'eq': return a === e;
    case 'ne': return a !== e;
    case 'co': return a.includes(e);
    case 'sw': return a.startsWith(e);
    case 'ew': return a.endsWith(e);
    case 'gt': return a > e;
    case 'ge': return a >= e;
    case 'lt': return a < e;
    case 'le': return a <= e;
  }
}

/** Values at `path` in `object`, flattening multi-valued attributes (a filter matches when any value does). */
function valuesAt(object: unknown, path: AttrPath): unknown[] {
  const top = member(object, path.attr);
  const items = Array.isArray(top) ? top : [top];
  if (!path.sub) return items;
  return items.flatMap((item) => {
    const value = member(item, path.sub!);
    return Array.isArray(value) ? value : [value];
  });
}

/** Whether `object` (a resource or one element of a multi-valued attribute) matches `filter`. */
export function matches(object: unknown, filter: Filter, caseExact: (path: AttrPath) => boolean = () => false): boolean {
  switch (filter.kind) {
    case 'and': return matches(object, filter.left, caseExact) && matches(object, filter.right, caseExact);
    case 'or': return matches(object, filter.left, caseExact) || matches(object, filter.right, caseExact);
    case 'not': return !matches(object, filter.filter, caseExact);
    case 'present': return valuesAt(object, filter.path).some((v) => !isEmpty(v));
    case 'valuePath': {
      const elements = member(object, filter.path.attr);
      return (Array.isArray(elements) ? elements : elements === undefined ? [] : [elements]).some((e) => matches(e, filter.filter, caseExact));
    }
    case 'compare': {
      const values = valuesAt(object, filter.path);
      if (filter.op === 'ne') return !values.some((v) => compareOne(v, 'eq', filter.value, caseExact(filter.path)));
      return values.some((v) => compareOne(v, filter.op, filter.value, caseExact(filter.path)));
    }
  }
}
