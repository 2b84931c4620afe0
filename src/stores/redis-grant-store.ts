/**
 * "Approve always" grants in Redis, shared by every gateway instance: a sorted set per scope
 * (`<prefix>gateway:grant-ends:<scope>`, member: the grant's key, score: until when, in ms since the
 * epoch), kept as long as its longest grant. A grant with an end lasts until then (`MAX_GRANT_MS` at most,
 * as in every grant store), one without an end `maxGrantMs` (every key has a TTL). Each grant also sweeps
 * out up to 64 grants of its scope that ran out (the lowest scores): its work is O(log n), however many the
 * scope holds, and what ran out goes 64 times as fast as grants come (the key itself expires with its
 * longest grant). A scope holds at most `maxGrantsPerScope` grants (10,000, as in memory): past it, a grant
 * drops those that end soonest (never itself), and the latest end of one dropped while it still held is
 * kept (`<prefix>gateway:grant-dropped:<scope>`, until that end) for `droppedUntil`. A grant's note (who
 * granted it, when) is a string of its own (`<prefix>gateway:grant-note:<scope>` NUL `<key>`), written before
 * the grant and expiring with it; `held` reads it only while the grant holds, so the note of a grant dropped,
 * taken or forgotten is never read, and goes at that grant's end.
 * @module
 */
import type { Redis } from 'ioredis';
import { checkGrantEnd, type GrantStore } from './grant-store.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import { GRANT, TAKE } from './redis-grant-scripts.js';

export interface RedisGrantStoreOptions extends RedisStoreOptions {
  /** How long a grant without an end lasts, in ms (default 24 hours). */
  maxGrantMs?: number;
  /**
   * How many grants a scope holds at most (default 10,000). Past it, a grant drops those of the scope that
   * end soonest, even while they hold (see `droppedUntil`).
   */
  maxGrantsPerScope?: number;
}

/** Grants a scope holds at most in Redis, by default (as in memory). */
export const DEFAULT_MAX_GRANTS_PER_SCOPE = 10_000;

export const DEFAULT_MAX_GRANT_MS = 24 * 60 * 60_000;

/** Grants that ran out a grant sweeps out of its scope, at most. */
const SWEEP = 64;

const NAME = 'Redis grant store';

export class RedisGrantStore implements GrantStore {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #dropped: string;
  readonly #notes: string;
  readonly #maxMs: number;
  readonly #max: number;

  constructor(client: Redis, options: RedisGrantStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}gateway:grant-ends:`;
    this.#dropped = `${prefixOf(options)}gateway:grant-dropped:`;
    this.#notes = `${prefixOf(options)}gateway:grant-note:`;
    this.#maxMs = positiveOption(options.maxGrantMs ?? DEFAULT_MAX_GRANT_MS, 'maxGrantMs');
    const max = options.maxGrantsPerScope ?? DEFAULT_MAX_GRANTS_PER_SCOPE;
    if (!Number.isSafeInteger(max) || max < 1)
      throw new RangeError(`maxGrantsPerScope must be a positive integer, not ${max}`);
    this.#max = max;
  }

  async grant(scope: string, key: string, until?: number, note?: string): Promise<void> {
    const now = Date.now();
    checkGrantEnd(until, now);
    const end = until ?? now + this.#maxMs;
    // The note first: a grant that holds has its own note, never an earlier grant's.
    const noteKey = `${this.#notes}${scope}\u0000${key}`;
    await redisOperation(this.#client, NAME, 'grant', async () => {
      if (note === undefined) await this.#client.del(noteKey);
      else await this.#client.set(noteKey, note, 'PX', Math.max(1, Math.ceil(end - now)));
    });
    await redisOperation(this.#client, NAME, 'grant', () =>
      GRANT.run(
        this.#client,
        [this.#prefix + scope, this.#dropped + scope],
        [key, Math.floor(end), SWEEP, this.#max],
      ),
    );
  }

  has(scope: string, key: string): Promise<boolean> {
    return redisOperation(this.#client, NAME, 'has', async () => {
      const until = await this.#client.zscore(this.#prefix + scope, key);
      return until !== null && Number(until) > Date.now();
    });
  }

  held(scope: string, key: string): Promise<{ note?: string } | undefined> {
    return redisOperation(this.#client, NAME, 'held', async () => {
      const until = await this.#client.zscore(this.#prefix + scope, key);
      if (until === null || Number(until) <= Date.now()) return undefined;
      const note = await this.#client.get(`${this.#notes}${scope}\u0000${key}`);
      return note === null ? {} : { note };
    });
  }

  take(scope: string, key: string): Promise<boolean> {
    return redisOperation(this.#client, NAME, 'take', async () => {
      const held = await TAKE.run(this.#client, [this.#prefix + scope], [key, Date.now()]);
      return held === 1;
    });
  }

  /** Forgets the scope's keys, reclaimed off Redis's main thread (`UNLINK`), however many grants it holds. */
  async forget(scope: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'forget', () =>
      this.#client.unlink(this.#prefix + scope, this.#dropped + scope),
    );
  }

  /** The latest end of a grant of `scope` dropped past the bound while it held (kept until then); else 0. */
  droppedUntil(scope: string): Promise<number> {
    return redisOperation(this.#client, NAME, 'droppedUntil', async () =>
      Number((await this.#client.get(this.#dropped + scope)) ?? 0),
    );
  }
}
