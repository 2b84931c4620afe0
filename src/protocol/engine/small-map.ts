/**
 * A map that holds its first entry in two fields and makes a `Map` only for a second one at once: what a
 * connection tracks per request (requests in flight, the streams of an HTTP session's POSTs) is mostly
 * one entry at a time, and nothing when idle, where an empty `Map` would still hold its hash table (≈200
 * bytes) for every idle connection.
 * @module
 */
export class SmallMap<K, V> {
  #soloKey: K | undefined;
  #solo: V | undefined;
  #has = false;
  /** The entries past the first, made when two are held at once (kept once made). */
  #more: Map<K, V> | undefined;

  get size(): number {
    return (this.#has ? 1 : 0) + (this.#more?.size ?? 0);
  }

  get(key: K): V | undefined {
    if (this.#has && this.#soloKey === key) return this.#solo;
    return this.#more?.get(key);
  }

  has(key: K): boolean {
    return (this.#has && this.#soloKey === key) || (this.#more?.has(key) ?? false);
  }

  set(key: K, value: V): void {
    if (this.#has ? this.#soloKey === key : !this.#more?.has(key)) {
      this.#soloKey = key;
      this.#solo = value;
      this.#has = true;
      return;
    }
    (this.#more ??= new Map()).set(key, value);
  }

  delete(key: K): boolean {
    if (this.#has && this.#soloKey === key) {
      this.#has = false;
      this.#soloKey = undefined;
      this.#solo = undefined;
      return true;
    }
    return this.#more?.delete(key) ?? false;
  }

  clear(): void {
    this.#has = false;
    this.#soloKey = undefined;
    this.#solo = undefined;
    this.#more?.clear();
  }

  /** The values, the first entry's first (a copy: the map may change while they are used). */
  values(): V[] {
    const values = this.#has ? [this.#solo as V] : [];
    if (this.#more) for (const value of this.#more.values()) values.push(value);
    return values;
  }
}
