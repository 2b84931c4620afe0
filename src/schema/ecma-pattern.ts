/**
 * Reads an ECMA-262 regular expression (the dialect of JSON Schema's `pattern`, `patternProperties` and
 * `format: "regex"`) in one pass and writes it in RE2 syntax with the same meaning, for a linear-time engine:
 * `.`, `\s` and `\S` keep JavaScript's line terminators and white space, `\u` and `\x` escapes become code
 * points, groups become non-capturing (only `test` is ever asked). What no linear-time engine runs is refused
 * with a {@link PatternSyntaxError}: backreferences (`\1`, `\k<name>`), lookahead and lookbehind, and a
 * pattern whose repetitions would expand past {@link MAX_PATTERN_SIZE} (`(?:a{1000}){1000}`).
 * @module
 */

/** The most instructions a pattern may expand to (each atom counts once per repetition of it). */
export const MAX_PATTERN_SIZE = 10_000;

/** The largest count a `{n,m}` quantifier may name (RE2's limit). */
export const MAX_REPEAT = 1000;

/** The deepest nesting of groups. */
const MAX_GROUP_DEPTH = 100;

/** A pattern the linear-time engine cannot run, or that is not a regular expression at all. */
export class PatternSyntaxError extends Error {
  override name = 'PatternSyntaxError';
  /** The pattern refused, once known. */
  pattern: string | undefined;
}

// JavaScript's \s (WhiteSpace and LineTerminator), and its complement, as RE2 class ranges.
const SPACE =
  '\\x{9}-\\x{d}\\x{20}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
const NOT_SPACE =
  '\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}' +
  '\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}';
/** `.` without the `s` flag: anything but a line terminator. */
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

/** Long names of the general categories, which RE2 knows by their short names only. */
const CATEGORIES: Readonly<Record<string, string>> = {
  Letter: 'L', Cased_Letter: 'LC', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt', Modifier_Letter: 'Lm',
  Other_Letter: 'Lo', Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn', Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me', Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd', Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe', Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf', Other_Punctuation: 'Po',
  Symbol: 'S', Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk', Other_Symbol: 'So',
  Separator: 'Z', Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp', Other: 'C',
  Control: 'Cc', cntrl: 'Cc', Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co', Unassigned: 'Cn',
}; // prettier-ignore

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);
const isWordChar = (c: string | undefined): boolean => c !== undefined && /^[A-Za-z0-9_]$/.test(c);

/** A code point as RE2 reads it: letters and digits as they are, anything else as `\x{…}`. */
function literal(code: number): string {
  const c = String.fromCodePoint(code);
  return /^[A-Za-z0-9]$/.test(c) ? c : `\\x{${code.toString(16)}}`;
}

/** What a class escape or class character stands for: one code point, or a set (`\d`, `\p{L}`, …). */
type ClassAtom = { code: number } | { set: string };

/** One open group (the whole pattern is the outermost): its size so far and the atom a quantifier takes. */
interface Frame {
  size: number;
  /** Size of the last atom, when a quantifier may follow it. */
  last: number | undefined;
}

/**
 * The RE2 spelling of an ECMA-262 pattern (read as with the `u` flag, a little more leniently: `\:` and a
 * lone `{`, `}` or `]` are literals).
 *
 * @throws {PatternSyntaxError} for a pattern that is invalid, uses backreferences or lookaround, nests
 *   groups deeper than 100, repeats more than {@link MAX_REPEAT} times, or expands past {@link MAX_PATTERN_SIZE}.
 */
export function translatePattern(source: string): string {
  return new Reader(source).read();
}

class Reader {
  readonly #s: string;
  #i = 0;
  #out = '';
  readonly #frames: Frame[] = [{ size: 0, last: undefined }];

  constructor(source: string) {
    this.#s = source;
  }

  read(): string {
    while (this.#i < this.#s.length) this.#term();
    if (this.#frames.length > 1) throw new PatternSyntaxError('unterminated group');
    return this.#out;
  }

  get #frame(): Frame {
    return this.#frames[this.#frames.length - 1]!;
  }

  #atom(text: string, size = 1): void {
    this.#out += text;
    this.#grow(size);
    this.#frame.last = size;
  }

  #grow(size: number): void {
    const frame = this.#frame;
    frame.size += size;
    if (frame.size > MAX_PATTERN_SIZE) {
      throw new PatternSyntaxError(`the pattern expands to more than ${MAX_PATTERN_SIZE} instructions`);
    }
  }

  #term(): void {
    const s = this.#s;
    const c = s[this.#i]!;
    switch (c) {
      case '|':
        this.#i++;
        this.#out += '|';
        this.#frame.last = undefined;
        return;
      case '(':
        return this.#open();
      case ')':
        return this.#close();
      case '*':
      case '+':
      case '?':
        this.#i++;
        return this.#quantify(c, 1);
      case '{': {
        const quantifier = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.#i, this.#i + 24));
        if (!quantifier) break; // a literal `{`
        this.#i += quantifier[0].length;
        const min = Number(quantifier[1]);
        const max = quantifier[2] === undefined ? min : quantifier[3] ? Number(quantifier[3]) : undefined;
        if (min > MAX_REPEAT || (max ?? 0) > MAX_REPEAT) {
          throw new PatternSyntaxError(`a repeat count over ${MAX_REPEAT} (${quantifier[0]})`);
        }
        if (max !== undefined && max < min)
          throw new PatternSyntaxError(`numbers out of order in ${quantifier[0]}`);
        return this.#quantify(quantifier[0], Math.max(max ?? min + 1, 1));
      }
      case '^':
      case '$':
        this.#i++;
        this.#out += c;
        this.#grow(1);
        this.#frame.last = undefined;
        return;
      case '.':
        this.#i++;
        return this.#atom(DOT);
      case '[':
        return this.#atom(this.#class());
      case '\\':
        return this.#escape();
    }
    const code = s.codePointAt(this.#i)!;
    this.#i += code > 0xffff ? 2 : 1;
    this.#atom(literal(code));
  }

  #quantify(text: string, factor: number): void {
    const frame = this.#frame;
    if (frame.last === undefined) throw new PatternSyntaxError(`nothing to repeat before ${text}`);
    this.#out += text;
    if (this.#s[this.#i] === '?') {
      this.#out += '?';
      this.#i++;
    }
    this.#grow(frame.last * (factor - 1) + 1);
    frame.last = undefined;
  }

  #open(): void {
    const s = this.#s;
    if (s.startsWith('(?=', this.#i) || s.startsWith('(?!', this.#i)) {
      throw new PatternSyntaxError('lookahead ((?= and (?!) is not supported');
    }
    if (s.startsWith('(?<=', this.#i) || s.startsWith('(?<!', this.#i)) {
      throw new PatternSyntaxError('lookbehind ((?<= and (?<!) is not supported');
    }
    if (s.startsWith('(?:', this.#i)) {
      this.#i += 3;
    } else if (s.startsWith('(?<', this.#i)) {
      const end = s.indexOf('>', this.#i + 3);
      const name = end < 0 ? '' : s.slice(this.#i + 3, end);
      if (!/^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u.test(name)) {
        throw new PatternSyntaxError('invalid group name');
      }
      this.#i = end + 1;
    } else if (s[this.#i + 1] === '?') {
      throw new PatternSyntaxError(`unsupported group syntax ${s.slice(this.#i, this.#i + 3)}`);
    } else {
      this.#i++;
    }
    if (this.#frames.length > MAX_GROUP_DEPTH) {
      throw new PatternSyntaxError(`groups nested deeper than ${MAX_GROUP_DEPTH}`);
    }
    this.#out += '(?:';
    this.#frames.push({ size: 0, last: undefined });
  }

  #close(): void {
    if (this.#frames.length === 1) throw new PatternSyntaxError('unmatched )');
    this.#i++;
    const inner = this.#frames.pop()!;
    this.#out += ')';
    this.#grow(inner.size + 1);
    this.#frame.last = inner.size + 1;
  }

  /** An escape outside a class. */
  #escape(): void {
    const c = this.#s[this.#i + 1];
    if (c === 'b' || c === 'B') {
      this.#i += 2;
      this.#out += `\\${c}`;
      this.#grow(1);
      this.#frame.last = undefined;
    } else if (c === 's' || c === 'S') {
      this.#i += 2;
      this.#atom(`[${c === 's' ? SPACE : NOT_SPACE}]`);
    } else {
      const atom = this.#classEscape(false);
      this.#atom('code' in atom ? literal(atom.code) : atom.set);
    }
  }

  /** `[…]`, as an RE2 class. */
  #class(): string {
    const s = this.#s;
    this.#i++;
    const negated = s[this.#i] === '^';
    if (negated) this.#i++;
    if (s[this.#i] === ']') {
      this.#i++;
      return negated ? '[\\x{0}-\\x{10ffff}]' : '[^\\x{0}-\\x{10ffff}]';
    }
    let out = negated ? '[^' : '[';
    for (;;) {
      if (this.#i >= s.length) throw new PatternSyntaxError('unterminated character class');
      if (s[this.#i] === ']') break;
      const first = this.#classAtom();
      if (s[this.#i] === '-' && s[this.#i + 1] !== ']' && this.#i + 1 < s.length) {
        this.#i++;
        const second = this.#classAtom();
        if (!('code' in first) || !('code' in second)) {
          throw new PatternSyntaxError(
            'a character class range with a class escape (such as \\d) at one end',
          );
        }
        if (second.code < first.code) throw new PatternSyntaxError('a character class range out of order');
        out += `${literal(first.code)}-${literal(second.code)}`;
      } else {
        out += 'code' in first ? literal(first.code) : first.set;
      }
    }
    this.#i++;
    return `${out}]`;
  }

  #classAtom(): ClassAtom {
    const s = this.#s;
    if (s[this.#i] === '\\') {
      const c = s[this.#i + 1];
      if (c === 'b') {
        this.#i += 2;
        return { code: 8 };
      }
      if (c === 's' || c === 'S') {
        this.#i += 2;
        return { set: c === 's' ? SPACE : NOT_SPACE };
      }
      return this.#classEscape(true);
    }
    const code = s.codePointAt(this.#i)!;
    this.#i += code > 0xffff ? 2 : 1;
    return { code };
  }

  /** The escapes a class and the rest share: `\d`, `\p{…}`, `\x41`, `\u{1F600}`, `\cJ`, `\.`, … */
  #classEscape(inClass: boolean): ClassAtom {
    const s = this.#s;
    const c = s[this.#i + 1];
    if (c === undefined) throw new PatternSyntaxError('\\ at the end of the pattern');
    this.#i += 2;
    switch (c) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return { set: `\\${c}` };
      case 't':
        return { code: 9 };
      case 'n':
        return { code: 10 };
      case 'v':
        return { code: 11 };
      case 'f':
        return { code: 12 };
      case 'r':
        return { code: 13 };
      case 'c': {
        const letter = s[this.#i];
        if (letter === undefined || !/^[A-Za-z]$/.test(letter))
          throw new PatternSyntaxError('invalid \\c escape');
        this.#i++;
        return { code: letter.charCodeAt(0) % 32 };
      }
      case 'x':
        if (!isHex(s[this.#i]) || !isHex(s[this.#i + 1])) throw new PatternSyntaxError('invalid \\x escape');
        this.#i += 2;
        return { code: parseInt(s.slice(this.#i - 2, this.#i), 16) };
      case 'u':
        return { code: this.#unicodeEscape() };
      case 'p':
      case 'P':
        return { set: `\\${c}{${this.#property()}}` };
      case 'k':
        throw new PatternSyntaxError('backreferences (\\k<name>) are not supported');
      case '0':
        if (isDigit(s[this.#i])) throw new PatternSyntaxError('octal escapes are not supported');
        return { code: 0 };
    }
    if (isDigit(c)) {
      throw new PatternSyntaxError(
        inClass ? `invalid escape \\${c} in a character class` : `backreferences (\\${c}) are not supported`,
      );
    }
    if (isWordChar(c)) throw new PatternSyntaxError(`invalid escape \\${c}`);
    // An escaped punctuation character (`\.`, `\/`, `\-`, and leniently `\:`): the character itself.
    const code = s.codePointAt(this.#i - 1)!;
    if (code > 0xffff) this.#i++;
    return { code };
  }

  /** After `\u`: `{1F600}`, or `D83D` (with a following `\uDE00` when it is a high surrogate). */
  #unicodeEscape(): number {
    const s = this.#s;
    if (s[this.#i] === '{') {
      const end = s.indexOf('}', this.#i);
      const hex = end < 0 ? '' : s.slice(this.#i + 1, end);
      if (!/^[0-9A-Fa-f]{1,6}$/.test(hex) || parseInt(hex, 16) > 0x10ffff) {
        throw new PatternSyntaxError('invalid \\u{…} escape');
      }
      this.#i = end + 1;
      return parseInt(hex, 16);
    }
    const hex = s.slice(this.#i, this.#i + 4);
    if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw new PatternSyntaxError('invalid \\u escape');
    this.#i += 4;
    const code = parseInt(hex, 16);
    const low = /^\\u([Dd][C-Fc-f][0-9A-Fa-f]{2})/.exec(s.slice(this.#i, this.#i + 6));
    if (code >= 0xd800 && code <= 0xdbff && low) {
      this.#i += 6;
      return 0x10000 + ((code - 0xd800) << 10) + (parseInt(low[1]!, 16) - 0xdc00);
    }
    return code;
  }

  /** After `\p`: `{Name}`, `{General_Category=Name}` or `{Script=Name}`, as the name RE2 knows. */
  #property(): string {
    const s = this.#s;
    const end = s.indexOf('}', this.#i);
    const body = s[this.#i] === '{' && end > 0 ? s.slice(this.#i + 1, end) : '';
    const match = /^(?:(General_Category|gc|Script|sc)=)?([A-Za-z_]+)$/.exec(body);
    if (!match) throw new PatternSyntaxError('invalid \\p{…} escape');
    this.#i = end + 1;
    const name = match[2]!;
    const script = match[1] === 'Script' || match[1] === 'sc';
    return (!script && Object.hasOwn(CATEGORIES, name) ? CATEGORIES[name] : undefined) ?? name;
  }
}
