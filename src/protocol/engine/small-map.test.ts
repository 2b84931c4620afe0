import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SmallMap } from './small-map.js';

type Op =
  | { kind: 'set'; key: string | number; value: number }
  | { kind: 'delete' | 'get'; key: string | number }
  | { kind: 'clear' };

const key = fc.oneof(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 3 }));
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'get' as const), key }),
  fc.constant({ kind: 'clear' as const }),
);

describe('SmallMap', () => {
  it('answers as a Map does, whatever the sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const small = new SmallMap<string | number, number>();
        const map = new Map<string | number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            small.set(o.key, o.value);
            map.set(o.key, o.value);
          } else if (o.kind === 'delete') expect(small.delete(o.key)).toBe(map.delete(o.key));
          else if (o.kind === 'clear') {
            small.clear();
            map.clear();
          }
          expect(small.size).toBe(map.size);
          for (const k of ['a', 'b', 'c', 0, 1, 2, 3]) {
            expect(small.get(k)).toBe(map.get(k));
            expect(small.has(k)).toBe(map.has(k));
          }
          expect(small.values().sort()).toEqual([...map.values()].sort());
        }
      }),
    );
  });

  it('tells 1 from "1" (keys compare as a Map compares them)', () => {
    const small = new SmallMap<string | number, string>();
    small.set(1, 'number');
    small.set('1', 'string');
    expect([small.get(1), small.get('1'), small.size]).toEqual(['number', 'string', 2]);
  });
});
