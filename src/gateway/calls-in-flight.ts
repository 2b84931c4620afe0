/**
 * The requests in flight on each upstream (calls, parked ones included, prompt gets, resource reads),
 * with the downstream connection each came on: whose a question is that an upstream asks where nothing
 * on the wire says which of its requests asked it (stdio, an HTTP upstream's standalone stream).
 * @module
 */
import type { ClientHandlers } from '../index.js';

/** A request in flight upstream. */
export interface InFlight {
  /** The caller's connection (`ToolContext.connection`); undefined where there is none (stateless era). */
  readonly connection: object | undefined;
  /** What relays a question to its caller; undefined where the caller may be asked nothing. */
  readonly handlers: ClientHandlers | undefined;
}

export class CallsInFlight {
  /** By upstream name; a set keeps its order, oldest first. */
  readonly #byUpstream = new Map<string, Set<InFlight>>();

  /** Counts `entry` in flight on `upstream` until the returned function is called. */
  add(upstream: string, entry: InFlight): () => void {
    let entries = this.#byUpstream.get(upstream);
    if (!entries) this.#byUpstream.set(upstream, (entries = new Set()));
    entries.add(entry);
    const set = entries;
    return () => {
      set.delete(entry);
      if (set.size === 0 && this.#byUpstream.get(upstream) === set) this.#byUpstream.delete(upstream);
    };
  }

  /**
   * Whose a question of `upstream` is that names no request: the only request in flight there; or, with
   * several, the oldest, when every one came on the same connection (it is that caller's question, whichever
   * of its requests asked). Undefined when none is in flight, or when they came on different connections
   * (or on none): nothing says whose it is, and no other caller may get it.
   */
  owner(upstream: string): InFlight | undefined {
    const entries = this.#byUpstream.get(upstream);
    if (!entries) return undefined;
    let oldest: InFlight | undefined;
    for (const entry of entries) {
      if (!oldest) {
        oldest = entry;
        if (entries.size > 1 && entry.connection === undefined) return undefined;
      } else if (entry.connection !== oldest.connection) return undefined;
    }
    return oldest;
  }
}
