/**
 * "Approve always" grants of a gateway: a person let one caller call one tool without asking again, until
 * a time or for as long as the store keeps grants. Grants live in a scope (the gateway's: an upstream's
 * name), so that every grant of an upstream that goes away is forgotten at once. Instances sharing the
 * store share the grants.
 * @module
 */

/**
 * The longest a grant with an end may last: 365 days (an "approve always for" beyond it is refused; a
 * grant without an end lasts as long as its store keeps grants).
 */
export const MAX_GRANT_MS = 365 * 24 * 60 * 60_000;

export interface GrantStore {
  /**
   * Grants `key` in `scope` until `until` (ms since the epoch), or for as long as the store keeps grants.
   * Rejects with a RangeError, granting nothing, when `until` is more than `MAX_GRANT_MS` from now.
   */
  grant(scope: string, key: string, until?: number): Promise<void>;
  /** Whether `key` holds in `scope` now. */
  has(scope: string, key: string): Promise<boolean>;
  /**
   * Uses a single-use grant: whether `key` held in `scope` now, removing it atomically (of two takers at
   * once, one gets true).
   */
  take(scope: string, key: string): Promise<boolean>;
  /** Forgets every grant of `scope`. */
  forget(scope: string): Promise<void>;
}

/** Throws the RangeError a grant store rejects with for an `until` more than `MAX_GRANT_MS` after `now`. @internal */
export function checkGrantEnd(until: number | undefined, now: number): void {
  if (until !== undefined && until - now > MAX_GRANT_MS)
    throw new RangeError(`A grant may last at most ${MAX_GRANT_MS} ms (365 days)`);
}

export interface MemoryGrantStoreOptions {
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
}

/** Grants a scope holds at most in memory; past it, those that ran out are dropped first, then the oldest. */
const MAX_GRANTS_PER_SCOPE = 10_000;

/** The in-memory default: the grants of this process, until it exits (a grant without `until` lasts that long). */
export class MemoryGrantStore implements GrantStore {
  readonly #scopes = new Map<string, Map<string, number>>();
  readonly #now: () => number;

  constructor(options: MemoryGrantStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  grant(scope: string, key: string, until?: number): Promise<void> {
    try {
      checkGrantEnd(until, this.#now());
    } catch (error) {
      return Promise.reject(error as Error);
    }
    let grants = this.#scopes.get(scope);
    if (!grants) this.#scopes.set(scope, (grants = new Map<string, number>()));
    grants.delete(key);
    grants.set(key, until ?? Infinity);
    if (grants.size > MAX_GRANTS_PER_SCOPE) {
      const now = this.#now();
      for (const [other, end] of grants) if (end <= now) grants.delete(other);
      for (const other of grants.keys()) {
        if (grants.size <= MAX_GRANTS_PER_SCOPE) break;
        grants.delete(other);
      }
    }
    return Promise.resolve();
  }

  has(scope: string, key: string): Promise<boolean> {
    const grants = this.#scopes.get(scope);
    const until = grants?.get(key);
    if (until === undefined) return Promise.resolve(false);
    if (until > this.#now()) return Promise.resolve(true);
    grants!.delete(key);
    return Promise.resolve(false);
  }

  take(scope: string, key: string): Promise<boolean> {
    const grants = this.#scopes.get(scope);
    const until = grants?.get(key);
    if (until === undefined) return Promise.resolve(false);
    grants!.delete(key);
    return Promise.resolve(until > this.#now());
  }

  forget(scope: string): Promise<void> {
    this.#scopes.delete(scope);
    return Promise.resolve();
  }
}
