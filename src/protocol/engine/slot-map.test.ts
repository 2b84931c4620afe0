import fc from 'fast-check';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SlotMap } from './slot-map.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major'; execution: 'sync' }) => void;

type Op =
  | { kind: 'set'; key: string | number; value: number }
  | { kind: 'delete' | 'get' | 'has'; key: string | number }
  | { kind: 'clear' };

const key = fc.oneof(fc.constantFrom('a', 'b', 'c', '1'), fc.integer({ min: 0, max: 5 }));
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'get' as const, 'has' as const), key }),
  fc.constant({ kind: 'clear' as const }),
);

describe('SlotMap', () => {
  it('answers as a Map does, whatever the sequence of operations, and lists in insertion order', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const map = new Map<string | number, number>();
        const slots = new SlotMap<string | number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            map.set(o.key, o.value);
            slots.set(o.key, o.value);
          } else if (o.kind === 'delete') expect(slots.delete(o.key)).toBe(map.delete(o.key));
          else if (o.kind === 'get') expect(slots.get(o.key)).toBe(map.get(o.key));
          else if (o.kind === 'has') expect(slots.has(o.key)).toBe(map.has(o.key));
          else {
            map.clear();
            slots.clear();
          }
          expect(slots.size).toBe(map.size);
        }
        expect(slots.keys()).toEqual([...map.keys()]);
        expect(slots.values()).toEqual([...map.values()]);
        expect(slots.entries()).toEqual([...map.entries()]);
      }),
    );
  });

  it('hands back copies: changing the map while going through them is safe', () => {
    const slots = new SlotMap<number, string>();
    for (let i = 0; i < 5; i++) slots.set(i, `v${i}`);
    for (const [k] of slots.entries()) slots.delete(k);
    expect(slots.size).toBe(0);
    slots.set(9, 'again');
    expect(slots.entries()).toEqual([[9, 'again']]);
  });

  it('keeps nothing it let go of alive through a young-generation collection, however often entries come and go', () => {
    // A long-lived map (moved to the old generation by two full collections), then entries coming and
    // going as requests in flight do: 16 at a time, 4,000 of ≈1 KB in all. What was deleted must not
    // survive a scavenge. (A `Map` of the values fails this: the old hash tables it leaves behind at each
    // rehash, in the old generation, still point at the entries they held, so all 4 MB survive.)
    const slots = new SlotMap<number, number[]>();
    expect(heldAfterChurn(slots)).toBeLessThan(1024 * 1024);
    expect(slots.size).toBe(0);
  });
});

/** Bytes still held, young or old, after churning 4,000 values through `map` and one scavenge. */
function heldAfterChurn(map: {
  set(key: number, value: number[]): void;
  delete(key: number): boolean;
}): number {
  gc({ type: 'major', execution: 'sync' });
  gc({ type: 'major', execution: 'sync' });
  const before = heapUsed();
  const inFlight = 16;
  for (let n = 0; n < 4000; n++) {
    map.set(n, new Array<number>(128).fill(n));
    if (n >= inFlight) map.delete(n - inFlight);
  }
  for (let n = 4000 - inFlight; n < 4000; n++) map.delete(n);
  gc({ type: 'minor', execution: 'sync' });
  return heapUsed() - before;
}

function heapUsed(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space' || space.space_name === 'old_space') used += space.space_used_size;
  }
  return used;
}
