/**
 * Every store on one Redis connection: `redisStores('redis://…')` opens a connection with the limits a
 * server wants (a command fails after `commandTimeoutMs` instead of waiting, the connection comes back
 * by itself after Redis restarts), or takes an `ioredis` client you made.
 * @module
 */
import { Redis } from 'ioredis';
import { RedisApprovalStore } from './redis-approval-store.js';
import { RedisAuditStore, type RedisAuditStoreOptions } from './redis-audit-store.js';
import { RedisCallLogStore, type RedisCallLogStoreOptions } from './redis-call-log-store.js';
import { RedisEventStore, type RedisEventStoreOptions } from './redis-event-store.js';
import { RedisGrantStore, type RedisGrantStoreOptions } from './redis-grant-store.js';
import { RedisMessageBus } from './redis-message-bus.js';
import { positiveOption, type RedisStoreOptions } from './redis-options.js';
import { RedisRateLimitStore } from './redis-rate-limit-store.js';
import { RedisSessionBus } from './redis-session-bus.js';
import { RedisSessionStore, type RedisSessionStoreOptions } from './redis-session-store.js';
import { RedisSubscriber } from './redis-subscriber.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';

export interface RedisStoresOptions extends RedisStoreOptions {
  /**
   * With a URL: how long a command may wait for its reply, connected or not, before it fails with a
   * `StoreError` (default 2000 ms), and how long the connection may hear nothing with commands out before
   * it is dropped and made again (what timed out is never sent again). A client you pass keeps its own
   * settings: give it a `commandTimeout`, a small `maxRetriesPerRequest`, a `socketTimeout` and
   * `autoResendUnfulfilledCommands: false` for the same bounds.
   */
  commandTimeoutMs?: number;
  sessions?: Omit<RedisSessionStoreOptions, 'prefix'>;
  events?: Omit<RedisEventStoreOptions, 'prefix'>;
  tasks?: Omit<RedisTaskStoreOptions, 'prefix'>;
  /**
   * The gateway's stores: how long settled approvals are remembered, grants last, audit records and
   * calls are kept.
   */
  gateway?: {
    keepSettledMs?: number;
    /** Pending approvals one listing gives at most (default 4,000; the answer says how many wait). */
    maxListedApprovals?: number;
    maxGrantMs?: RedisGrantStoreOptions['maxGrantMs'];
    /** Grants a scope (an upstream's "approve always") holds at most (default 10,000); the soonest ending go first. */
    maxGrantsPerScope?: RedisGrantStoreOptions['maxGrantsPerScope'];
    audit?: Omit<RedisAuditStoreOptions, 'prefix'>;
    calls?: Omit<RedisCallLogStoreOptions, 'prefix'>;
  };
}

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2000;

/** The stores of toolwire on one Redis connection; `close()` closes the connection if it opened it. */
export class RedisStores {
  /** The connection the stores use. */
  readonly client: Redis;
  readonly sessions: RedisSessionStore;
  readonly events: RedisEventStore;
  readonly rateLimits: RedisRateLimitStore;
  readonly tasks: RedisTaskStore;
  /** A gateway's pending approvals, "approve always" grants, audit records, call log and live events. */
  readonly approvals: RedisApprovalStore;
  readonly grants: RedisGrantStore;
  readonly audit: RedisAuditStore;
  readonly calls: RedisCallLogStore;
  readonly bus: RedisMessageBus;
  /** The one pub/sub connection of these stores (opened by the first subscription). */
  readonly #subscriber: RedisSubscriber;
  readonly #owned: boolean;
  readonly #prefix: { prefix?: string };
  #bus: RedisSessionBus | undefined;

  constructor(connection: string | Redis, options: RedisStoresOptions = {}) {
    this.#owned = typeof connection === 'string';
    this.client = typeof connection === 'string' ? connect(connection, options) : connection;
    const prefix = options.prefix === undefined ? {} : { prefix: options.prefix };
    this.#prefix = prefix;
    this.sessions = new RedisSessionStore(this.client, { ...options.sessions, ...prefix });
    this.events = new RedisEventStore(this.client, { ...options.events, ...prefix });
    this.rateLimits = new RedisRateLimitStore(this.client, prefix);
    const subscriber = (this.#subscriber = new RedisSubscriber(this.client));
    this.tasks = new RedisTaskStore(this.client, { ...options.tasks, ...prefix, subscriber });
    const gateway = options.gateway ?? {};
    this.approvals = new RedisApprovalStore(this.client, {
      ...prefix,
      subscriber,
      ...(gateway.keepSettledMs === undefined ? {} : { keepSettledMs: gateway.keepSettledMs }),
      ...(gateway.maxListedApprovals === undefined ? {} : { maxListed: gateway.maxListedApprovals }),
    });
    this.grants = new RedisGrantStore(this.client, {
      ...prefix,
      ...(gateway.maxGrantMs === undefined ? {} : { maxGrantMs: gateway.maxGrantMs }),
      ...(gateway.maxGrantsPerScope === undefined ? {} : { maxGrantsPerScope: gateway.maxGrantsPerScope }),
    });
    this.audit = new RedisAuditStore(this.client, { ...gateway.audit, ...prefix });
    this.calls = new RedisCallLogStore(this.client, { ...gateway.calls, ...prefix });
    this.bus = new RedisMessageBus(this.client, { ...prefix, subscriber });
  }

  /**
   * The messages between processes that share sessions (Redis pub/sub, its own subscriber connection),
   * made the first time it is asked for (the Streamable HTTP handler's `redis` option does).
   */
  get sessionBus(): RedisSessionBus {
    return (this.#bus ??= new RedisSessionBus(this.client, this.#prefix));
  }

  /**
   * Closes the pub/sub connections, and the connection when it was opened from a URL (a client you passed
   * stays yours).
   */
  async close(): Promise<void> {
    this.#subscriber.close();
    await this.#bus?.close();
    if (!this.#owned || this.client.status === 'end') return;
    if (this.client.status !== 'ready') {
      this.client.disconnect();
      return;
    }
    await this.client.quit().catch(() => this.client.disconnect());
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** {@link RedisStores} on `connection`: a `redis://` or `rediss://` URL, or an `ioredis` client. */
export function redisStores(connection: string | Redis, options: RedisStoresOptions = {}): RedisStores {
  return new RedisStores(connection, options);
}

function connect(url: string, options: RedisStoresOptions): Redis {
  if (!/^rediss?:\/\//i.test(url))
    throw new TypeError(`a Redis URL starts with redis:// or rediss://, got ${url}`);
  const timeout = positiveOption(
    options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    'commandTimeoutMs',
  );
  const client = new Redis(url, {
    commandTimeout: timeout,
    connectTimeout: timeout,
    // A command waits for one reconnection at most (and commandTimeout in any case), then fails.
    maxRetriesPerRequest: 1,
    // A connection that has commands out and hears nothing for that long (Redis frozen: SIGSTOP, DEBUG
    // SLEEP, a dead peer that keeps the socket open) is dropped and made again: the commands that timed out
    // would otherwise stay queued, bytes and all, for as long as Redis is frozen (memory growing with the
    // load), and the handshake of a reconnection to a frozen Redis would wait for ever.
    socketTimeout: timeout,
    // A command that timed out was given up on: it is not sent again after a reconnection (its write would
    // land late, long after its caller was told it failed).
    autoResendUnfulfilledCommands: false,
    // Reconnect for ever, at most a second apart: Redis coming back is noticed within a second.
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  // Connection errors reach the commands that fail because of them; the event itself needs no handler
  // (without one, ioredis prints every reconnection failure).
  client.on('error', () => undefined);
  return client;
}
