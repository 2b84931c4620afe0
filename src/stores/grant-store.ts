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
   * Rejects with a RangeError, granting nothing, when `until` is more than `MAX_GRANT_MS` from now. `note`
   * (the gateway's: who granted it, when, on which approval) is kept with the grant for `held`, replacing
   * the note of an earlier grant of the key (none: the earlier one's goes).
   */
  grant(scope: string, key: string, until?: number, note?: string): Promise<void>;
  /** Whether `key` holds in `scope` now. */
  has(scope: string, key: string): Promise<boolean>;
  /**
   * Whether `key` holds in `scope` now, with the note it was granted with (`{}`: none); undefined when it
   * does not hold. Optional: for a store without it, the gateway asks `has` and knows no note.
   */
  held?(scope: string, key: string): Promise<{ note?: string } | undefined>;
  /**
   * Uses a single-use grant: whether `key` held in `scope` now, removing it atomically (of two takers at
   * once, one gets true).
   */
  take(scope: string, key: string): Promise<boolean>;
  /** Forgets every grant of `scope`. */
  forget(scope: string): Promise<void>;
  /**
   * The latest end (ms since the epoch) of the grants of `scope` that this store dropped while they still
   * held, to keep the scope within its bound; 0 when it never did. A store that bounds a scope may drop a
   * grant early: for a grant that lets something through ("approve always", a retry) that only means
   * asking again, but a caller that keeps grants to refuse something (the gateway's ended console
   * sessions) must also refuse whatever ends no later than this, so that nothing dropped comes back. Both
   * stores bound a scope (`maxGrantsPerScope`, 10,000 by default): memory drops the oldest granted first,
   * Redis those that end soonest.
   */
  droppedUntil(scope: string): Promise<number>;
}

/** Throws the RangeError a grant store rejects with for an `until` more than `MAX_GRANT_MS` after `now`. @internal */
export function checkGrantEnd(until: number | undefined, now: number): void {
  if (until !== undefined && until - now > MAX_GRANT_MS)
    throw new RangeError(`A grant may last at most ${MAX_GRANT_MS} ms (365 days)`);
}

export interface MemoryGrantStoreOptions {
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
  /**
   * How many grants a scope holds at most (default 10,000). Past it, those that ran out are dropped first,
   * then the oldest granted, even while they hold (see `droppedUntil`).
   */
  maxGrantsPerScope?: number;
}

/** Grants a scope holds at most in memory, by default. */
const DEFAULT_MAX_GRANTS_PER_SCOPE = 10_000;

interface Scope {
  /** Key → until (ms since the epoch; Infinity: no end), in the order granted (a grant again moves to the end). */
  grants: Map<string, number>;
  /** Key → the note it was granted with, for the keys of `grants` that have one. */
  notes: Map<string, string>;
  /** The latest end of a grant dropped while it still held (`droppedUntil`). */
  droppedUntil: number;
  /** Grants since the scope was last swept of those that ran out. */
  sinceSweep: number;
}

/**
 * The in-memory default: the grants of this process, until it exits (a grant without `until` lasts that
 * long). A scope holds at most `maxGrantsPerScope` grants: past it, a grant first sweeps out those that ran
 * out (a whole sweep at most once per quarter of the bound's grants, so that a grant costs O(1) amortised),
 * then drops the oldest granted, raising `droppedUntil` when one still held.
 */
export class MemoryGrantStore implements GrantStore {
  readonly #scopes = new Map<string, Scope>();
  readonly #now: () => number;
  readonly #max: number;

  constructor(options: MemoryGrantStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    const max = options.maxGrantsPerScope ?? DEFAULT_MAX_GRANTS_PER_SCOPE;
    if (!Number.isSafeInteger(max) || max < 1)
      throw new RangeError(`maxGrantsPerScope must be a positive integer, not ${max}`);
    this.#max = max;
  }

  grant(scope: string, key: string, until?: number, note?: string): Promise<void> {
    const now = this.#now();
    try {
      checkGrantEnd(until, now);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    let entry = this.#scopes.get(scope);
    if (!entry)
      this.#scopes.set(
        scope,
        (entry = { grants: new Map(), notes: new Map(), droppedUntil: 0, sinceSweep: 0 }),
      );
    const { grants, notes } = entry;
    grants.delete(key);
    grants.set(key, until ?? Infinity);
    if (note === undefined) notes.delete(key);
    else notes.set(key, note);
    entry.sinceSweep++;
    if (grants.size <= this.#max) return Promise.resolve();
    if (entry.sinceSweep >= Math.ceil(this.#max / 4)) {
      entry.sinceSweep = 0;
      for (const [other, end] of grants) if (end <= now) drop(entry, other);
    }
    for (const [other, end] of grants) {
      if (grants.size <= this.#max) break;
      drop(entry, other);
      if (end > now) entry.droppedUntil = Math.max(entry.droppedUntil, end);
    }
    return Promise.resolve();
  }

  has(scope: string, key: string): Promise<boolean> {
    return Promise.resolve(this.#holding(scope, key) !== undefined);
  }

  held(scope: string, key: string): Promise<{ note?: string } | undefined> {
    const entry = this.#holding(scope, key);
    const note = entry?.notes.get(key);
    return Promise.resolve(entry === undefined ? undefined : note === undefined ? {} : { note });
  }

  /** The scope of `key` when it holds now (one that ran out is dropped); else undefined. */
  #holding(scope: string, key: string): Scope | undefined {
    const entry = this.#scopes.get(scope);
    const until = entry?.grants.get(key);
    if (until === undefined) return undefined;
    if (until > this.#now()) return entry;
    drop(entry!, key);
    return undefined;
  }

  take(scope: string, key: string): Promise<boolean> {
    const entry = this.#scopes.get(scope);
    const until = entry?.grants.get(key);
    if (until === undefined) return Promise.resolve(false);
    drop(entry!, key);
    return Promise.resolve(until > this.#now());
  }

  forget(scope: string): Promise<void> {
    this.#scopes.delete(scope);
    return Promise.resolve();
  }

  droppedUntil(scope: string): Promise<number> {
    return Promise.resolve(this.#scopes.get(scope)?.droppedUntil ?? 0);
  }
}

/** Forgets one grant of a scope, and its note. */
function drop(entry: Scope, key: string): void {
  entry.grants.delete(key);
  entry.notes.delete(key);
}
