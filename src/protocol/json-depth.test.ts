import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_DEPTH, MAX_VALUE_DEPTH, isNestedDeeper } from './json-depth.js';

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
