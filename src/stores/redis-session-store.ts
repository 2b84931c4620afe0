/**
 * Session records in Redis, for several processes: a hash per session (`<prefix>session:<id>`, one
 * field per property, and one per subscribed URI, `subscription:<uri>`, so that a subscription writes
 * only itself and goes with the record) and one sorted set of ids by `lastSeenAt` (`<prefix>sessions`) that answers
 * `idleSince` and `count` without scanning keys. A record expires `ttlMs` after it was last seen (Redis
 * TTL, refreshed by every update of `lastSeenAt`); the index sheds what expired as sessions are created
 * and counted, and expires itself once no session was seen for `ttlMs`. It holds at most `maxSessions`
 * records: past them a new session is refused (the handler answers its `initialize` 503), as the copies a
 * process holds are bounded, so that sessions opened and left idle (their copies unloaded) do not pile up.
 * @module
 */
import type { Redis } from 'ioredis';
import { decodeFields, encodeFields } from './redis-fields.js';
import { positiveOption, prefixOf, type RedisStoreOptions } from './redis-options.js';
import { execReplies } from './redis-script.js';
import { CREATE, UPDATE } from './redis-session-scripts.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { redisOperation } from './redis-operation.js';

export interface RedisSessionStoreOptions extends RedisStoreOptions {
  /**
   * How long a record is kept after it was last seen, in ms (default 24 hours). A backstop for records
   * no process deletes (their process died): keep it above the handler's `sessionIdleTimeoutMs`, which
   * ends idle sessions first.
   */
  ttlMs?: number;
  /**
   * How many session records the store holds at most, of every process sharing it (default 100,000): past
   * them `create` fails (a `StoreError`: the `initialize` gets 503) until a session ends or expires.
   */
  maxSessions?: number;
}

export const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60_000;
export const DEFAULT_REDIS_MAX_SESSIONS = 100_000;

const NAME = 'Redis session store';
/** The hash field of a subscribed URI (no property name holds a colon). */
const SUBSCRIPTION = 'subscription:';

export class RedisSessionStore implements SessionStore {
  readonly expires = true;
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #index: string;
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(client: Redis, options: RedisSessionStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}session:`;
    this.#index = `${prefixOf(options)}sessions`;
    this.#ttlMs = positiveOption(options.ttlMs ?? DEFAULT_SESSION_TTL_MS, 'ttlMs');
    this.#max = positiveOption(options.maxSessions ?? DEFAULT_REDIS_MAX_SESSIONS, 'maxSessions');
  }

  async create(record: SessionRecord): Promise<void> {
    const { set } = encodeFields(record);
    const args = [record.id, record.lastSeenAt, this.#ttlMs, Date.now() - this.#ttlMs, this.#max, ...set];
    await redisOperation(this.#client, NAME, 'create', async () => {
      if ((await CREATE.run(this.#client, this.#keys(record.id), args)) === 0)
        throw new Error(`it holds ${this.#max} sessions (its maxSessions); one must end or expire first`);
    });
  }

  get(id: string): Promise<SessionRecord | undefined> {
    return redisOperation(this.#client, NAME, 'get', async () => {
      const hash = await this.#client.hgetall(this.#prefix + id);
      const fields: Record<string, string> = {};
      const subscriptions = new Set<string>();
      for (const [field, json] of Object.entries(hash)) {
        if (field.startsWith(SUBSCRIPTION)) subscriptions.add(field.slice(SUBSCRIPTION.length));
        else fields[field] = json;
      }
      const record = decodeFields(fields) as SessionRecord | undefined;
      // A record written whole (by `update`) holds the list as one property.
      for (const uri of record?.subscriptions ?? []) subscriptions.add(uri);
      if (record && subscriptions.size > 0) record.subscriptions = [...subscriptions];
      return record;
    });
  }

  async update(id: string, patch: Partial<Omit<SessionRecord, 'id'>>): Promise<void> {
    const { set, unset } = encodeFields(patch);
    const seen = patch.lastSeenAt === undefined ? '' : patch.lastSeenAt;
    const args = [id, seen, this.#ttlMs, set.length, ...set, ...unset];
    await redisOperation(this.#client, NAME, 'update', () => UPDATE.run(this.#client, this.#keys(id), args));
  }

  async updateSubscriptions(
    id: string,
    subscribed: readonly string[],
    unsubscribed: readonly string[],
  ): Promise<void> {
    const set = subscribed.flatMap((uri) => [SUBSCRIPTION + uri, '1']);
    const unset = unsubscribed.map((uri) => SUBSCRIPTION + uri);
    const args = [id, '', this.#ttlMs, set.length, ...set, ...unset];
    await redisOperation(this.#client, NAME, 'updateSubscriptions', () =>
      UPDATE.run(this.#client, this.#keys(id), args),
    );
  }

  async delete(id: string): Promise<void> {
    await redisOperation(this.#client, NAME, 'delete', async () =>
      execReplies(
        await this.#client
          .multi()
          .del(this.#prefix + id)
          .zrem(this.#index, id)
          .exec(),
      ),
    );
  }

  idleSince(before: number): Promise<string[]> {
    return redisOperation(this.#client, NAME, 'idleSince', () =>
      this.#client.zrangebyscore(this.#index, '-inf', `(${before}`),
    );
  }

  count(): Promise<number> {
    return redisOperation(this.#client, NAME, 'count', async () => {
      const replies = await this.#client
        .multi()
        .zremrangebyscore(this.#index, '-inf', `(${Date.now() - this.#ttlMs}`)
        .zcard(this.#index)
        .exec();
      return Number(execReplies(replies)[1]);
    });
  }

  #keys(id: string): string[] {
    return [this.#prefix + id, this.#index];
  }
}
