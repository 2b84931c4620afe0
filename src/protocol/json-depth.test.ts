import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_MESSAGE_DEPTH,
  MAX_TEXT_DEPTH,
  MAX_VALUE_DEPTH,
  isNestedDeeper,
  isTextNestedDeeper,
  parsePeerJson,
  topLevelFacts,
} from './json-depth.js';

const nested = (levels: number): unknown => {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe('isNestedDeeper', () => {
  it('bounds values at 64 levels and messages at 128', () => {
    expect([MAX_VALUE_DEPTH, MAX_MESSAGE_DEPTH]).toEqual([64, 128]);
  });

  it('counts the value itself as level 1, objects and arrays alike, primitives as 0', () => {
    expect(isNestedDeeper('text', 0)).toBe(false);
    expect(isNestedDeeper({}, 0)).toBe(true);
    expect(isNestedDeeper(nested(64), 64)).toBe(false);
    expect(isNestedDeeper(nested(65), 64)).toBe(true);
    expect(isNestedDeeper({ a: 1, b: [1, 2, { c: [] }] }, 4)).toBe(false);
    expect(isNestedDeeper({ a: 1, b: [1, 2, { c: [] }] }, 3)).toBe(true);
  });

  it('stops at the bound on a 100,000-deep value and on a cycle', () => {
    expect(isNestedDeeper(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 128)).toBe(true);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(isNestedDeeper(cyclic, 128)).toBe(true);
  });
});

const arrays = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const objects = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

describe('isTextNestedDeeper', () => {
  it('counts objects and arrays as parsed values count them, exactly at the bound and one past it', () => {
    for (const text of [arrays(3), objects(3), '{"a":[{"b":[]}]}', '[{"a":[]}]']) {
      expect(isTextNestedDeeper(text, 3)).toBe(isNestedDeeper(JSON.parse(text), 3));
    }
    expect(isTextNestedDeeper(arrays(MAX_TEXT_DEPTH), MAX_TEXT_DEPTH)).toBe(false);
    expect(isTextNestedDeeper(arrays(MAX_TEXT_DEPTH + 1), MAX_TEXT_DEPTH)).toBe(true);
    expect(isTextNestedDeeper(objects(MAX_TEXT_DEPTH), MAX_TEXT_DEPTH)).toBe(false);
    expect(isTextNestedDeeper(objects(MAX_TEXT_DEPTH + 1), MAX_TEXT_DEPTH)).toBe(true);
    expect(isTextNestedDeeper('[[],[],[[]]]', 2)).toBe(true);
    expect(isTextNestedDeeper('[[],[],[]]   ', 2)).toBe(false);
  });

  it('skips brackets inside strings, escaped quotes and backslashes included', () => {
    const inString = JSON.stringify({ s: '[[[[{{{{' });
    expect(isTextNestedDeeper(inString, 1)).toBe(false);
    // An escaped backslash ends the string at the next quote: the brackets after it are outside.
    expect(isTextNestedDeeper(String.raw`["\\"[[[[", 1]`, 1)).toBe(true);
    // An escaped quote does not end the string: the brackets after it are still inside.
    expect(isTextNestedDeeper(String.raw`["\"[[[[", 1]`, 1)).toBe(false);
    // Valid JSON texts: the scan agrees with the parsed value's depth at every bound.
    const texts = [
      String.raw`["a\\", [[1]]]`,
      String.raw`["\u005b\\\"]]]]]", [[[]]]]`,
      String.raw`{"k[{\"": ["\\\\", "\"]\"", "\\\\\"[[[[", {"x": "\\"}]}`,
      JSON.stringify({ 'k[{': ['\\\\', '"]"', '\\\\"[[[[', { x: '\\' }] }),
    ];
    for (const text of texts) {
      for (let bound = 0; bound <= 5; bound++) {
        expect([text, bound, isTextNestedDeeper(text, bound)]).toEqual([
          text,
          bound,
          isNestedDeeper(JSON.parse(text), bound),
        ]);
      }
    }
    expect(isTextNestedDeeper(texts[0] ?? '', 2)).toBe(true);
    expect(isTextNestedDeeper(texts[1] ?? '', 3)).toBe(true);
    expect(isTextNestedDeeper(texts[1] ?? '', 4)).toBe(false);
  });

  it('agrees with the parsed value on any JSON whose strings are made of brackets, quotes and backslashes', () => {
    const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a'), maxLength: 8 });
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        tricky,
        fc.integer(),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
      ),
    }));
    fc.assert(
      fc.property(value, fc.boolean(), (json, spaced) => {
        const text = JSON.stringify(json, null, spaced ? 1 : undefined);
        for (let bound = 0; bound <= 6; bound++) {
          if (isTextNestedDeeper(text, bound) !== isNestedDeeper(json, bound)) return false;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  it('stops at the bound on a million-deep text, and on an unterminated string', () => {
    expect(isTextNestedDeeper(arrays(1_000_000), MAX_TEXT_DEPTH)).toBe(true);
    expect(isTextNestedDeeper(`["${'['.repeat(1000)}`, 1)).toBe(false);
  });
});

describe('parsePeerJson', () => {
  it('parses what is within the bound, and throws a SyntaxError naming the bound past it', () => {
    expect(parsePeerJson(arrays(MAX_TEXT_DEPTH))).toEqual(JSON.parse(arrays(MAX_TEXT_DEPTH)));
    expect(() => parsePeerJson(arrays(1_000_000))).toThrow(SyntaxError);
    expect(() => parsePeerJson(arrays(1_000_000))).toThrow(
      `JSON nested deeper than ${MAX_TEXT_DEPTH} levels`,
    );
    expect(MAX_TEXT_DEPTH).toBeGreaterThan(MAX_MESSAGE_DEPTH + 1);
    expect(() => parsePeerJson('{"a":')).toThrow(SyntaxError);
  });
});

describe('DeepJsonError', () => {
  const deep = `${'['.repeat(2000)}${']'.repeat(2000)}`;
  const refused = (text: string): unknown => {
    try {
      parsePeerJson(text);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('names the top-level id of a refused answer, wherever it stands', () => {
    expect(refused(`{"jsonrpc":"2.0","id":7,"result":${deep}}`)).toMatchObject({ id: 7, answer: true });
    expect(refused(`{"result":${deep},"jsonrpc":"2.0","id":"a\\"b"}`)).toMatchObject({
      id: 'a"b',
      answer: true,
    });
    expect(refused(`{"error":{"data":${deep}} , "id" : -12.5e1}`)).toMatchObject({ id: -125, answer: true });
  });

  it('is no answer for a request, and reads no id from nested objects or strings', () => {
    expect(refused(`{"jsonrpc":"2.0","id":3,"method":"m","params":${deep}}`)).toMatchObject({
      id: 3,
      answer: false,
    });
    expect(refused(`{"params":{"id":5,"x":${deep}},"note":"\\"id\\":6","result":1}`)).toMatchObject({
      id: undefined,
      answer: true,
    });
    expect(refused(deep)).toMatchObject({ id: undefined, answer: false });
  });
});

describe('topLevelFacts', () => {
  it('tells a request (a top-level method) from an answer, and neither from a nested method', () => {
    expect(topLevelFacts('{"jsonrpc":"2.0","id":1,"method":"m","params":{"result":1}}')).toEqual({
      id: 1,
      answer: false,
      request: true,
    });
    expect(topLevelFacts('{"id":"x","result":{"method":"m"}}')).toEqual({
      id: 'x',
      answer: true,
      request: false,
    });
    expect(topLevelFacts('{"params":{"method":"m","error":1}}')).toEqual({
      id: undefined,
      answer: false,
      request: false,
    });
  });

  it('reads text cut anywhere up to the cut, and takes no id the cut may have shortened', () => {
    const text = '{"jsonrpc":"2.0","id":123456,"method":"tools/call","params":{"v":"x"}}';
    for (let cut = 0; cut <= text.length; cut++) {
      const facts = topLevelFacts(text.slice(0, cut));
      expect([undefined, 123456]).toContain(facts.id);
      expect(facts.answer).toBe(false);
    }
    expect(topLevelFacts('{"id":1234').id).toBeUndefined();
    expect(topLevelFacts('{"id":"abc').id).toBeUndefined();
    expect(topLevelFacts('{"id":-').id).toBeUndefined();
    expect(topLevelFacts('{"id":-x,"result":1}')).toEqual({ id: undefined, answer: true, request: false });
    expect(topLevelFacts('{"id":1234,').id).toBe(1234);
  });
});
