import { describe, expect, it } from 'vitest';
import { buildToolArguments, coerceValue, parseToolArguments } from './parse-tool-arguments.js';

describe('key=value arguments typed by the input schema', () => {
  it('keeps a string property as written, parses numbers, integers and booleans', () => {
    expect(coerceValue('5', { type: 'string' })).toBe('5');
    expect(coerceValue('"quoted"', { type: 'string' })).toBe('"quoted"');
    expect(coerceValue('5', { type: 'number' })).toBe(5);
    expect(coerceValue('5', { type: 'integer' })).toBe(5);
    expect(coerceValue('true', { type: 'boolean' })).toBe(true);
    // Not of the declared type: left as the string, for the schema check to refuse.
    expect(coerceValue('five', { type: 'number' })).toBe('five');
    expect(coerceValue('true', { type: 'number' })).toBe('true');
    expect(coerceValue('5', { type: 'boolean' })).toBe('5');
  });

  it('parses JSON for other and undeclared types, else keeps the string', () => {
    expect(coerceValue('["a"]', { type: 'array' })).toEqual(['a']);
    expect(coerceValue('{"a":1}', { type: 'object' })).toEqual({ a: 1 });
    expect(coerceValue('5', undefined)).toBe(5);
    expect(coerceValue('hello', undefined)).toBe('hello');
    expect(coerceValue('5', { enum: [5, 6] })).toBe(5);
  });

  it('follows a union: a JSON value of an allowed type, else the string when strings are allowed', () => {
    expect(coerceValue('null', { type: ['string', 'null'] })).toBeNull();
    expect(coerceValue('5', { type: ['string', 'null'] })).toBe('5');
    expect(coerceValue('5', { type: ['integer', 'string'] })).toBe(5);
  });

  it('refuses numbers JSON cannot carry, or keeps the digits as a string where one is allowed', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'number' }, u: { type: ['string', 'number'] }, list: { type: 'array' } },
    };
    const build = (pairs: string[], args?: string) =>
      buildToolArguments(parseToolArguments(args, pairs, 'hint'), schema, 'hint');
    expect(() => build(['n=1e400'])).toThrow(/^n=1e400: a number too large to be finite/);
    expect(() => build(['list=[1,-1e999]'])).toThrow(/^list=\[1,-1e999\]: a number too large/);
    expect(() => build(['free=1e400'])).toThrow(/^free=1e400: a number too large/);
    expect(() => build([], '{"a":{"b":[1e400]}}')).toThrow(/^--args: a number too large to be finite/);
    expect(() => build(['n=9007199254740993'])).toThrow(/9007199254740993, an integer beyond 2\^53 - 1/);
    expect(() => build([], '{"n":-9007199254740993}')).toThrow(/^--args: -9007199254740993, an integer/);
    expect(build(['u=12345678901234567890', 'free=12345678901234567890'])).toEqual({
      u: '12345678901234567890',
      free: '12345678901234567890',
    });
    expect(build(['n=9007199254740991', 'u=1.5e300'], '{"s":"12345678901234567890"}')).toEqual({
      s: '12345678901234567890',
      n: 9007199254740991,
      u: 1.5e300,
    });
  });

  it('sets __proto__ as an argument of that name, as --args does, never the prototype', () => {
    const args = buildToolArguments(parseToolArguments(undefined, ['__proto__={"s":"x"}'], 'hint'));
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(JSON.stringify(args)).toBe('{"__proto__":{"s":"x"}}');
    const base = buildToolArguments(parseToolArguments('{"__proto__":{"s":"x"}}', [], 'hint'));
    expect(JSON.stringify(base)).toBe(JSON.stringify(args));
  });

  it('builds the arguments: --args first, pairs override, each pair typed by its property', () => {
    const schema = { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } };
    const input = parseToolArguments(
      '{"path":"a","extra":true}',
      ['path=5', 'limit=10', 'tags=["x"]'],
      'hint',
    );
    expect(buildToolArguments(input, schema)).toEqual({ path: '5', extra: true, limit: 10, tags: ['x'] });
  });
});
