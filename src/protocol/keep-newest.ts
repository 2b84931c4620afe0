/**
 * The bound of a cache or a memory kept in a `Map` or a `Set`: its first-inserted entries go first. Every
 * bounded memory of the library keeps its newest entries this way (re-inserting an entry makes it newest).
 * @module
 */

/** Drops the oldest entries of `collection` (in insertion order) until it holds at most `max`. */
export function keepNewest(collection: Map<unknown, unknown> | Set<unknown>, max: number): void {
  for (const key of collection.keys()) {
    if (collection.size <= max) return;
    collection.delete(key);
  }
}
