import { describe, expect, it } from 'vitest';
import { keepNewest } from './keep-newest.js';

describe('keepNewest', () => {
  it('drops the first-inserted entries of a Map or a Set down to the bound, and nothing under it', () => {
    const map = new Map([1, 2, 3, 4, 5].map((n) => [n, `v${n}`]));
    map.delete(2);
    map.set(2, 'again'); // re-inserted: now the newest
    keepNewest(map, 3);
    expect([...map.keys()]).toEqual([4, 5, 2]);
    keepNewest(map, 10);
    expect(map.size).toBe(3);
    const set = new Set(['a', 'b', 'c']);
    keepNewest(set, 0);
    expect(set.size).toBe(0);
  });
});
