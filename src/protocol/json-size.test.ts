import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSize } from './json-size.js';

/** JSON values whose text has nothing to escape and only safe integers: jsonSize is exact for them. */
const plain = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.stringMatching(/^[a-z0-9 ]*$/),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.stringMatching(/^[a-z]+$/), tie('value'), { maxKeys: 5 }),
  ),
})).value;

describe('jsonSize', () => {
  it('is the length of JSON.stringify for values with nothing to escape', () => {
    fc.assert(
      fc.property(plain, (value) => {
        expect(jsonSize(value)).toBe(JSON.stringify(value).length);
      }),
      { seed: 20261125, numRuns: 500 },
    );
  });

  it('counts what JSON.stringify leaves out as it does, or close', () => {
    expect(jsonSize({ a: undefined, b: () => 1, c: 1 })).toBe(JSON.stringify({ c: 1 }).length);
    expect(jsonSize([undefined])).toBe('[null]'.length);
    expect(jsonSize(0.1 + 0.2)).toBeGreaterThanOrEqual(String(0.1 + 0.2).length);
  });

  it('walks any depth without recursing past 32 levels', () => {
    // 100,000 levels, deeper than JSON.stringify goes: ["x"] adds 2 characters a level, {"k":…} 6.
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? [deep] : { k: deep, gone: undefined };
    expect(jsonSize(deep)).toBe(3 + 50_000 * 2 + 50_000 * 6);
    // Deeper than the recursion, the stack counts as it does: exact against JSON.stringify.
    let mixed: unknown = { a: [1, 'two', null, { b: true }], c: [] };
    for (let i = 0; i < 100; i++) mixed = { level: i, next: mixed, list: [i, {}] };
    expect(jsonSize(mixed)).toBe(JSON.stringify(mixed).length);
  });
});
