import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { escapePointerToken, isJsonSchemaObject, toJsonPointer } from './json-schema.js';

describe('isJsonSchemaObject', () => {
  it('accepts plain objects, including JSON.parse results and null-prototype objects', () => {
    expect(isJsonSchemaObject({ type: 'object' })).toBe(true);
    expect(isJsonSchemaObject(JSON.parse('{"type":"string"}'))).toBe(true);
    expect(isJsonSchemaObject(Object.create(null))).toBe(true);
  });

  it('rejects arrays, null, primitives, booleans and class instances such as zod schemas', () => {
    for (const value of [[], null, undefined, 'x', 1, true, new Date(), z.string()]) {
      expect(isJsonSchemaObject(value)).toBe(false);
    }
  });
});

describe('toJsonPointer', () => {
  it('joins segments with "/" and returns "" for the root', () => {
    expect(toJsonPointer([])).toBe('');
    expect(toJsonPointer(['a', 0, 'b'])).toBe('/a/0/b');
  });

  it('escapes "~" and "/" as RFC 6901 requires', () => {
    expect(escapePointerToken('a~/b')).toBe('a~0~1b');
    expect(toJsonPointer(['m~n', 'x/y'])).toBe('/m~0n/x~1y');
  });
});
