import fc from 'fast-check';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { SlotMap } from './slot-map.js';
import { SmallMap } from './small-map.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major'; execution: 'sync' }) => void;

type Op =
  | { kind: 'set'; key: string | number; value: number }
  | { kind: 'delete' | 'get' | 'has'; key: string | number }
  | { kind: 'clear' };

const keys = ['a', 'b', 'c', '1', 0, 1, 2, 3, 4, 5] as const;
const key = fc.constantFrom(...keys);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'get' as const, 'has' as const), key }),
  fc.constant({ kind: 'clear' as const }),
);

/** What both maps offer. */
interface MapLike<K, V> {
  readonly size: number;
  get(key: K): V | undefined;
  has(key: K): boolean;
  set(key: K, value: V): void;
  delete(key: K): boolean;
  clear(): void;
  values(): V[];
}

describe.each([
  { name: 'SlotMap', make: <K, V>(): MapLike<K, V> => new SlotMap<K, V>() },
  { name: 'SmallMap', make: <K, V>(): MapLike<K, V> => new SmallMap<K, V>() },
])('$name', ({ make }) => {
  it('answers as a Map does, whatever the sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const map = new Map<string | number, number>();
        const ours = make<string | number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            map.set(o.key, o.value);
            ours.set(o.key, o.value);
          } else if (o.kind === 'delete') expect(ours.delete(o.key)).toBe(map.delete(o.key));
          else if (o.kind === 'get') expect(ours.get(o.key)).toBe(map.get(o.key));
          else if (o.kind === 'has') expect(ours.has(o.key)).toBe(map.has(o.key));
          else {
            map.clear();
            ours.clear();
          }
          expect(ours.size).toBe(map.size);
          for (const k of keys) expect([ours.get(k), ours.has(k)]).toEqual([map.get(k), map.has(k)]);
          expect(ours.values().sort()).toEqual([...map.values()].sort());
        }
      }),
    );
  });

  it('tells 1 from "1" (keys compare as a Map compares them)', () => {
    const ours = make<string | number, string>();
    ours.set(1, 'number');
    ours.set('1', 'string');
    expect([ours.get(1), ours.get('1'), ours.size]).toEqual(['number', 'string', 2]);
  });

  it('keeps nothing it let go of alive through a young-generation collection, however often entries come and go', () => {
    // A long-lived map (moved to the old generation by two full collections), then entries coming and
    // going as requests in flight do: 16 at a time, 4,000 of ≈1 KB in all. What was deleted must not
    // survive a scavenge. (A `Map` of the values fails this: the old hash tables it leaves behind at each
    // rehash, in the old generation, still point at the entries they held, so all 4 MB survive.)
    const ours = make<number, number[]>();
    expect(heldAfterChurn(ours)).toBeLessThan(1024 * 1024);
    expect(ours.size).toBe(0);
  });
});

describe('SlotMap', () => {
  it('lists in insertion order, as a Map does', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const map = new Map<string | number, number>();
        const slots = new SlotMap<string | number, number>();
        for (const o of ops) {
          if (o.kind === 'set') {
            map.set(o.key, o.value);
            slots.set(o.key, o.value);
          } else if (o.kind === 'delete') {
            map.delete(o.key);
            slots.delete(o.key);
          } else if (o.kind === 'clear') {
            map.clear();
            slots.clear();
          }
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
});

/** Bytes still held, young or old, after churning 4,000 values through `map` and one scavenge. */
function heldAfterChurn(map: MapLike<number, number[]>): number {
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
