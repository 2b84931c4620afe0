import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/** The definition, written plainly: keys sorted at every level, members JSON leaves out left out. */
function reference(value: unknown): string {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  )
    return reference((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value)) return `[${value.map((item) => reference(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    const entries = Object.keys(object)
      .sort()
      .filter((key) => JSON.stringify(object[key]) !== undefined)
      .map((key) => `${JSON.stringify(key)}:${reference(object[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The same value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value).reverse();
  return Object.fromEntries(keys.map((key) => [key, reversed((value as Record<string, unknown>)[key])]));
}

/** JSON values with keys that sort differently as strings and as numbers (`"10"`, `"9"`), and `undefined`s. */
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string(), fc.nat(20).map(String)), tie('value'), { maxKeys: 6 }),
  ),
})).value;

describe('canonicalJson', () => {
  it('is the plain definition, for keys in order and out of it', () => {
    fc.assert(
      fc.property(values, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
        expect(canonicalJson(reversed(value))).toBe(reference(value));
      }),
      { seed: 20261126, numRuns: 1000 },
    );
  });

  it('reads back as the value JSON would give', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(reversed(value)))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { seed: 20261126, numRuns: 500 },
    );
  });

  it('sorts keys as strings, drops what JSON drops, and honours toJSON on either path', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: 'x' })).toBe('{"a":"x","b":[{"c":2,"d":1}]}');
    expect(canonicalJson({ 10: 1, 9: 2, a: 3 })).toBe('{"10":1,"9":2,"a":3}');
    expect(canonicalJson({ a: undefined, b: () => 1, c: [undefined, () => 1], d: Symbol('s') })).toBe(
      '{"c":[null,null]}',
    );
    const when = new Date(0);
    expect(canonicalJson({ a: when })).toBe(JSON.stringify({ a: when }));
    expect(canonicalJson({ b: 1, a: when })).toBe(`{"a":${JSON.stringify(when)},"b":1}`);
    expect(canonicalJson(undefined)).toBe('null');
  });
});
