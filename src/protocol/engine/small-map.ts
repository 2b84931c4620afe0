/**
 * A map that holds its first entry in two fields and makes a {@link SlotMap} only for a second one at
 * once: what a connection tracks per request (requests in flight, the streams of an HTTP session's POSTs) is mostly
 * one entry at a time, and nothing when idle, where an empty `Map` would still hold its hash table (≈200
 * bytes) for every idle connection.
 * @module
 */

import { SlotMap } from './slot-map.js';

/** The key of an empty first entry (no key of the map's is this object). */
const NONE: unique symbol = Symbol('none');

export class SmallMap<K, V> {
  #soloKey: K | typeof NONE = NONE;
  #solo: V | undefined;
  /** The entries past the first, made when two are held at once (kept once made; see {@link SlotMap}). */
  #more: SlotMap<K, V> | undefined;

  get size(): number {
    return (this.#soloKey === NONE ? 0 : 1) + (this.#more?.size ?? 0);
  }

  get(key: K): V | undefined {
    if (this.#soloKey === key) return this.#solo;
    return this.#more?.get(key);
  }

  has(key: K): boolean {
    return this.#soloKey === key || (this.#more?.has(key) ?? false);
  }

  set(key: K, value: V): void {
    if (this.#soloKey === key || (this.#soloKey === NONE && !this.#more?.has(key))) {
      this.#soloKey = key;
      this.#solo = value;
      return;
    }
    (this.#more ??= new SlotMap()).set(key, value);
  }

  delete(key: K): boolean {
    if (this.#soloKey === key) {
      this.#soloKey = NONE;
      this.#solo = undefined;
      return true;
    }
    return this.#more?.delete(key) ?? false;
  }

  clear(): void {
    this.#soloKey = NONE;
    this.#solo = undefined;
    this.#more?.clear();
  }

  /** The values, the first entry's first (a copy: the map may change while they are used). */
  values(): V[] {
    const values = this.#soloKey === NONE ? [] : [this.#solo as V];
    if (this.#more) for (const value of this.#more.values()) values.push(value);
    return values;
  }
}
