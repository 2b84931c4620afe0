import { describe, expect, it } from 'vitest';
import { MAX_PATTERN_SIZE, PatternSyntaxError, translatePattern } from './ecma-pattern.js';
import { LinearRegExp, isLinearPattern } from './linear-regexp.js';

/** Patterns and the inputs each is tried on; RE2 must answer as JavaScript's `RegExp` with the `u` flag. */
const CORPUS: [pattern: string, inputs: string[]][] = [
  ['^[a-z0-9-]+$', ['abc-1', 'ABC', '', 'a b']],
  ['^\\d{4}-\\d{2}-\\d{2}$', ['2024-01-31', '2024-1-31', '٢٠٢٤-01-31']],
  ['^.$', ['a', '😀', '\n', '\r', '\u2028', '\u2029', 'ab', '']],
  ['^\\s+$', [' ', '\t\v\f', '\u00a0', '\u3000\ufeff', 'a', '\u200b']],
  ['^\\S+$', ['abc', 'a b', '\u00a0', '\u2000', '😀']],
  ['^[\\s\\d]+$', ['1 2', '\u00a0', 'x']],
  ['^[^\\s]+$', ['abc', 'a\u00a0b']],
  ['^[\\S]$', ['a', ' ', '\u1680']],
  ['^\\u00e9$', ['é', 'e']],
  ['^[\\u0020-\\u007E]*$', ['hello', 'héllo', '']],
  ['^\\u{1F600}$', ['😀', '😁']],
  ['^\\uD83D\\uDE00$', ['😀', '😁']],
  ['^\\x41\\cJ$', ['A\n', 'A']],
  ['^\\p{L}+$', ['héllo', 'hello1', 'Ωμέγα']],
  ['^\\p{Lu}\\P{Lu}*$', ['Hello', 'HEllo']],
  ['^\\p{Letter}+$', ['abc', 'a1']],
  ['^\\p{Cased_Letter}\\p{Alphabetic}\\p{White_Space}$', ['Aa ', 'a1 ']],
  ['^\\p{Script=Greek}+$', ['αβγ', 'abc']],
  ['^\\p{gc=Nd}$', ['7', '٣', 'x']],
  ['[^]', ['', 'x', '\n']],
  ['^[]$', ['', 'x']],
  ['^[\\b]$', ['\b', 'b']],
  ['\\bword\\b', ['a word here', 'swordfish']],
  ['^a{2,3}$', ['a', 'aa', 'aaa', 'aaaa']],
  ['^a{2,}?$', ['a', 'aa', 'aaaaa']],
  ['^(?:ab|cd)+$', ['abcd', 'abc', '']],
  ['^(?<year>\\d{4})$', ['2024', '24']],
  ['^\\/api\\/v1\\.0$', ['/api/v1.0', '/api/v1x0']],
  ['^[\\-\\]\\[]+$', ['-][', 'a']],
  ['^[+\\-]?\\d+(\\.\\d+)?$', ['-1.5', '+2', '1.', '.5']],
  ['^\\w+@\\w+\\.\\w+$', ['a@b.co', 'a@b']],
  ['^[\\w.%+-]+@[\\w.-]+\\.[A-Za-z]{2,}$', ['john.doe+x@mail.example.org', 'nope@x']],
  ['^(a+)+$', ['aaaa', 'aaaa!']],
  ['ab*c|^x$', ['zzabbbcz', 'x', 'xx']],
  ['\\$\\{[^}]*\\}', ['${a}', '$a']],
  ['^[^\\n]*$', ['one line', 'two\nlines']],
  ['^\\0$', ['\0', '0']],
  ['^\\t\\n\\v\\f\\r$', ['\t\n\v\f\r']],
  ['^[\\d-]+$', ['1-2', 'x']],
  ['^$', ['', 'a']],
  ['', ['', 'anything']],
];

describe('translatePattern', () => {
  it.each(CORPUS)('runs %s with the meaning JavaScript gives it', (pattern, inputs) => {
    const linear = new LinearRegExp(pattern);
    const native = new RegExp(pattern, 'u');
    for (const input of inputs) expect([input, linear.test(input)]).toEqual([input, native.test(input)]);
  });

  it('matches case-insensitively with the i flag', () => {
    expect(new LinearRegExp('^hello$', 'i').test('HeLLo')).toBe(true);
    expect(new LinearRegExp('^hello$').test('HeLLo')).toBe(false);
  });

  it.each([
    ['(a)\\1', /backreferences \(\\1\)/],
    ['(?<n>a)\\k<n>', /backreferences \(\\k<name>\)/],
    ['a(?=b)', /lookahead/],
    ['a(?!b)', /lookahead/],
    ['(?<=a)b', /lookbehind/],
    ['(?<!a)b', /lookbehind/],
    ['(?i)a', /unsupported group syntax/],
    ['a{1001}', /repeat count over 1000/],
    ['a{3,2}', /out of order/],
    ['(?:a{1000}){1000}', /expands to more than 10000/],
    ['(?:(?:a{100}){100}){100}', /expands to more than 10000/],
    ['a**', /nothing to repeat/],
    ['*a', /nothing to repeat/],
    ['^*', /nothing to repeat/],
    ['(a', /unterminated group/],
    ['a)', /unmatched \)/],
    ['[a-', /unterminated character class/],
    ['[z-a]', /out of order/],
    ['[\\d-z]', /class escape/],
    ['\\q', /invalid escape \\q/],
    ['\\u12', /invalid \\u escape/],
    ['\\p{L', /invalid \\p/],
    ['\\', /at the end/],
    ['\\01', /octal/],
    ['(?<1a>x)', /invalid group name/],
  ])('refuses %s', (pattern, reason) => {
    expect(() => translatePattern(pattern)).toThrow(PatternSyntaxError);
    expect(() => translatePattern(pattern)).toThrow(reason);
  });

  it('counts repetitions of groups in the size of a pattern', () => {
    expect(() => translatePattern('(?:a{100}){95}')).not.toThrow();
    expect(() => translatePattern('a'.repeat(MAX_PATTERN_SIZE))).not.toThrow();
    expect(() => translatePattern('a'.repeat(MAX_PATTERN_SIZE + 1))).toThrow(/expands/);
  });

  it('refuses a Unicode property RE2 does not know, when the pattern compiles', () => {
    expect(() => new LinearRegExp('\\p{ID_Start}')).toThrow(PatternSyntaxError);
  });

  it('answers a catastrophic pattern in linear time', () => {
    const started = performance.now();
    expect(new LinearRegExp('^(a+)+$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(new LinearRegExp('^(a|a)*$').test(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('isLinearPattern (format "regex")', () => {
  it('accepts what the linear-time engine runs and refuses the rest', () => {
    expect(isLinearPattern('^[a-z]+\\d*$')).toBe(true);
    expect(isLinearPattern('\\p{Lu}')).toBe(true);
    expect(isLinearPattern('(a+)+')).toBe(true);
    expect(isLinearPattern('(a)\\1')).toBe(false);
    expect(isLinearPattern('a(?=b)')).toBe(false);
    expect(isLinearPattern('[')).toBe(false);
    expect(isLinearPattern('\\p{NoSuchProperty}')).toBe(false);
  });

  it('checks a long value in linear time, without compiling it', () => {
    const value = `${'(?:a|b)*'.repeat(1000)}[`;
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(isLinearPattern(value)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
