/**
 * A map for entries that come and go all the time (requests in flight) whose values are big object
 * graphs: the `Map` inside maps each key to a slot number, and the values sit in an array whose slot is
 * emptied when its entry goes.
 *
 * Why not a `Map` of the values: a long-lived `Map` lives in V8's old generation, and each time it
 * rehashes (every few dozen additions when entries keep coming and going) it leaves its old hash table
 * behind, still holding the entries it had then. The young-generation collector counts every pointer
 * from the old generation as live, so those entries, and all they reach, survive each scavenge until the
 * next full collection. In a gateway relaying calls this kept ≈1 MB alive at every scavenge (everything a
 * call in flight refers to), ten times the time spent collecting garbage. Here the old tables hold slot
 * numbers only, and an emptied slot refers to nothing.
 * @module
 */
/**
 * Slots an empty map keeps rather than starting its arrays again: one entry at a time (a request at a
 * time) would otherwise shrink and regrow them on every entry (≈150 → 80 ns a set-get-delete).
 */
const KEPT_SLOTS = 64;

export class SlotMap<K, V> {
  readonly #slots = new Map<K, number>();
  readonly #values: Array<V | undefined> = [];
  /** Emptied slots, to be used again. */
  readonly #free: number[] = [];

  get size(): number {
    return this.#slots.size;
  }

  get(key: K): V | undefined {
    const slot = this.#slots.get(key);
    return slot === undefined ? undefined : this.#values[slot];
  }

  has(key: K): boolean {
    return this.#slots.has(key);
  }

  set(key: K, value: V): void {
    const slot = this.#slots.get(key);
    if (slot !== undefined) {
      this.#values[slot] = value;
      return;
    }
    const free = this.#free.pop();
    if (free === undefined) {
      this.#slots.set(key, this.#values.length);
      this.#values.push(value);
    } else {
      this.#slots.set(key, free);
      this.#values[free] = value;
    }
  }

  delete(key: K): boolean {
    const slot = this.#slots.get(key);
    if (slot === undefined) return false;
    this.#slots.delete(key);
    if (this.#slots.size === 0 && this.#values.length > KEPT_SLOTS) {
      // Empty after a burst: the arrays start again, so a burst does not keep its length for good.
      this.#values.length = 0;
      this.#free.length = 0;
    } else {
      this.#values[slot] = undefined;
      this.#free.push(slot);
    }
    return true;
  }

  clear(): void {
    this.#slots.clear();
    this.#values.length = 0;
    this.#free.length = 0;
  }

  /** The keys, in the order they were added (a copy: the map may change while they are used). */
  keys(): K[] {
    return [...this.#slots.keys()];
  }

  /** The values, in the order their keys were added (a copy). */
  values(): V[] {
    const values: V[] = [];
    for (const slot of this.#slots.values()) values.push(this.#values[slot] as V);
    return values;
  }

  /** The entries, in the order they were added (a copy). */
  entries(): Array<[K, V]> {
    const entries: Array<[K, V]> = [];
    for (const [key, slot] of this.#slots) entries.push([key, this.#values[slot] as V]);
    return entries;
  }
}
