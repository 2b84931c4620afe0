/**
 * RFC 6570 URI templates, level 1 plus reserved expansion (`file:///{dir}/{name}`, `file://{+path}`):
 * enough to address a family of resources. Each `{variable}` matches one path segment: non-empty text
 * without `/` whose percent-decoded value has no `/`, `\` or NUL and is not `.` or `..` (so `..%2F` does
 * not climb out of a directory). A `{+variable}` matches any non-empty text on one line, slashes included,
 * and its value may hold `..`: a reader that maps it to a file must confine it. Values are
 * percent-decoded; expansion percent-encodes everything outside the unreserved set (and, for `{+x}`,
 * outside the reserved set too). Other operators (`{?q}`, `{#x}`, …), modifiers and variable lists are
 * refused.
 *
 * Matching takes O(n·k) time and memory for a URI of n characters and a template of k expressions, never
 * more: a URI is the caller's, and a backtracking regular expression took minutes on 100 KB against
 * `x://{a}{b}{c}`. Where a URI splits several ways (`file:///{name}.{ext}` on `file:///a.tar.gz`), the
 * earlier variable takes the longest value the rest allows (`a.tar` and `gz`), as a greedy regular
 * expression would.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import { ServerError } from '../server-error.js';

const EXPRESSION = /\{([^{}]*)\}/g;
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

/** Whether a `{+x}` value may hold this UTF-16 code unit: anything but a line terminator. */
function onOneLine(code: number): boolean {
  return code !== 0x0a && code !== 0x0d && code !== 0x2028 && code !== 0x2029;
}

/** Whether a `{x}` value may hold this UTF-16 code unit before decoding: anything but `/`. */
function inSegment(code: number): boolean {
  return code !== 0x2f;
}

/** Whether a decoded `{x}` value is one path segment: no `/`, `\` or NUL, and not `.` or `..`. */
function isSegment(value: string): boolean {
  return value !== '.' && value !== '..' && !/[/\\\0]/.test(value);
}

/** Where `literal` occurs in `text` (overlaps included), marked at its start; O(text + literal) (KMP). */
function occurrences(text: string, literal: string): Uint8Array {
  const marks = new Uint8Array(text.length + 1);
  if (literal.length === 0) return marks.fill(1);
  const border = new Int32Array(literal.length); // border[i]: the longest proper border of literal[0..i]
  for (let i = 1, j = 0; i < literal.length; i++) {
    while (j > 0 && literal[i] !== literal[j]) j = border[j - 1] ?? 0;
    if (literal[i] === literal[j]) j++;
    border[i] = j;
  }
  for (let i = 0, j = 0; i < text.length; i++) {
    while (j > 0 && text[i] !== literal[j]) j = border[j - 1] ?? 0;
    if (text[i] === literal[j]) j++;
    if (j === literal.length) {
      marks[i + 1 - j] = 1;
      j = border[j - 1] ?? 0;
    }
  }
  return marks;
}

function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export class UriTemplate {
  readonly template: string;
  /** The variable names, in order of appearance. */
  readonly variables: readonly string[];
  readonly #literals: readonly string[];
  readonly #reserved: readonly boolean[];

  /** Throws a ServerError for a template that is not level 1. */
  constructor(template: string) {
    const invalid = (why: string) =>
      new ServerError(LocalErrorCode.InvalidDefinition, `Invalid URI template "${template}": ${why}`);
    const variables: string[] = [];
    const reserved: boolean[] = [];
    const literals: string[] = [];
    let last = 0;
    for (const match of template.matchAll(EXPRESSION)) {
      const expression = match[1] ?? '';
      const plus = expression.startsWith('+');
      const name = plus ? expression.slice(1) : expression;
      if (!VARNAME.test(name)) {
        throw invalid(`{${expression}} is not supported (only {name} and {+name})`);
      }
      reserved.push(plus);
      if (variables.includes(name)) throw invalid(`the variable "${name}" appears twice`);
      literals.push(template.slice(last, match.index));
      variables.push(name);
      last = match.index + match[0].length;
    }
    literals.push(template.slice(last));
    if (literals.some((literal) => /[{}]/.test(literal))) throw invalid('unbalanced braces');
    this.template = template;
    this.variables = Object.freeze(variables);
    this.#literals = Object.freeze(literals);
    this.#reserved = Object.freeze(reserved);
  }

  /** Whether `text` contains a template expression at all (a plain URI does not). */
  static isTemplate(text: string): boolean {
    return /\{[^{}]*\}/.test(text);
  }

  /** The decoded variable values when `uri` matches, else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const ends = this.#split(uri);
    if (!ends) return undefined;
    const entries: [string, string][] = [];
    let start = this.#literals[0]?.length ?? 0;
    for (const [i, name] of this.variables.entries()) {
      const end = ends[i] ?? 0;
      let value: string;
      try {
        value = decodeURIComponent(uri.slice(start, end));
      } catch {
        return undefined; // malformed percent-encoding
      }
      if (!this.#reserved[i] && !isSegment(value)) return undefined;
      entries.push([name, value]);
      start = end + (this.#literals[i + 1]?.length ?? 0);
    }
    return Object.fromEntries(entries);
  }

  /**
   * Where each value of `uri` ends, or undefined when `uri` does not match: the split a greedy
   * `^L0(C+)L1(C+)…Lk$` would make (each value as long as the rest allows), found without backtracking.
   * Right to left, `rest[p]` tells whether values i… and the literals between them make up `uri[p, b)`
   * exactly; then left to right, value i ends at the last place its characters reach where literal i+1
   * follows and the rest can match.
   */
  #split(uri: string): number[] | undefined {
    const literals = this.#literals;
    const count = this.#reserved.length;
    const head = literals[0] ?? '';
    const tail = literals[count] ?? '';
    if (count === 0) return uri === head ? [] : undefined;
    const a = head.length;
    const b = uri.length - tail.length;
    if (b - a < count || !uri.startsWith(head) || !uri.endsWith(tail)) return undefined;
    const allowed = (i: number, at: number) =>
      (this.#reserved[i] ? onOneLine : inSegment)(uri.charCodeAt(at));
    // endsAt[i][e]: value i may end at e (literal i+1 follows, then the rest matches up to b).
    const endsAt: Uint8Array[] = [];
    let rest = new Uint8Array(uri.length + 1);
    for (let p = b - 1; p >= a && allowed(count - 1, p); p--) rest[p] = 1;
    for (let i = count - 2; i >= 0; i--) {
      const literal = literals[i + 1] ?? '';
      const ends = occurrences(uri, literal);
      for (let e = 0; e <= uri.length; e++) {
        if (e < a || e + literal.length > b || !rest[e + literal.length]) ends[e] = 0;
      }
      const here = new Uint8Array(uri.length + 1);
      for (let p = b - 1; p >= a; p--) here[p] = allowed(i, p) && (ends[p + 1] || here[p + 1]) ? 1 : 0;
      endsAt[i] = ends;
      rest = here;
    }
    if (!rest[a]) return undefined;
    const bounds: number[] = [];
    let p = a;
    for (let i = 0; i < count - 1; i++) {
      const ends = endsAt[i] ?? new Uint8Array(0);
      let end = p;
      for (let x = p; x < b && allowed(i, x); x++) if (ends[x + 1]) end = x + 1;
      bounds.push(end);
      p = end + (literals[i + 1]?.length ?? 0);
    }
    bounds.push(b);
    return bounds;
  }

  /** The URI for these values (a missing value expands to nothing, as RFC 6570 says). */
  expand(values: Readonly<Record<string, string>>): string {
    let uri = this.#literals[0] ?? '';
    for (const [i, name] of this.variables.entries()) {
      const value = Object.hasOwn(values, name) ? values[name] : undefined;
      const encoded = value === undefined ? '' : this.#reserved[i] ? encodeURI(value) : encodeValue(value);
      uri += encoded + (this.#literals[i + 1] ?? '');
    }
    return uri;
  }

  toString(): string {
    return this.template;
  }
}
