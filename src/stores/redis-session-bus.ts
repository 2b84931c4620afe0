/**
 * The session bus on Redis pub/sub: one subscriber connection per process (a duplicate of the stores'
 * connection), subscribed to its own channel (`<prefix>bus:instance:<id>`), to the channel every process
 * hears (`<prefix>bus:all`), and to `<prefix>bus:session:<id>` for each session whose `GET` stream it
 * holds. Messages are published on the stores' connection, as JSON. ioredis subscribes again by itself
 * after a reconnection; what was published meanwhile is lost (pub/sub keeps nothing), which the
 * event store makes up for on the client's next `Last-Event-ID`.
 * @module
 */
import type { Redis } from 'ioredis';
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js';
import { prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import type { BusAddress, SessionBus } from './session-bus.js';

const NAME = 'Redis session bus';

export class RedisSessionBus implements SessionBus {
  readonly instanceId = crypto.randomUUID();
  onmessage?: (payload: JsonObject, address: BusAddress) => void;
  readonly #client: Redis;
  readonly #subscriber: Redis;
  readonly #prefix: string;
  readonly #sessionPrefix: string;
  readonly #own: string;
  readonly #all: string;
  /** Listeners per session channel (a subscription is dropped when the last one leaves). */
  readonly #listening = new Map<string, number>();
  /** The subscriptions to the process's own channels, once in place. */
  readonly #ready: Promise<void>;

  constructor(client: Redis, options: RedisStoreOptions = {}) {
    this.#client = client;
    this.#prefix = `${prefixOf(options)}bus:`;
    this.#sessionPrefix = `${this.#prefix}session:`;
    this.#own = `${this.#prefix}instance:${this.instanceId}`;
    this.#all = `${this.#prefix}all`;
    this.#subscriber = client.duplicate();
    this.#subscriber.on('error', () => undefined);
    this.#subscriber.on('message', (channel: string, text: string) => this.#receive(channel, text));
    // Every (re)connection subscribes to everything again: ioredis resubscribes only to channels whose
    // SUBSCRIBE succeeded, and one sent while Redis was down failed.
    this.#subscriber.on('ready', () => void this.#subscribeAll());
    this.#ready = this.#subscribeAll();
  }

  /** Subscribes to this process's channels and the sessions it listens to (resolves even if Redis is down). */
  #subscribeAll(): Promise<void> {
    const sessions = [...this.#listening.keys()].map((id) => this.#sessionPrefix + id);
    return this.#subscriber.subscribe(this.#own, this.#all, ...sessions).then(
      () => undefined,
      () => undefined, // Redis is down: the next 'ready' tries again
    );
  }

  toSession(sessionId: string, payload: JsonObject): Promise<number> {
    return this.#publish(this.#sessionPrefix + sessionId, payload);
  }

  async toInstance(instanceId: string, payload: JsonObject): Promise<boolean> {
    return (await this.#publish(`${this.#prefix}instance:${instanceId}`, payload)) > 0;
  }

  async toAll(payload: JsonObject): Promise<void> {
    await this.#publish(this.#all, { ...payload, from: this.instanceId });
  }

  async listen(sessionId: string): Promise<void> {
    const count = this.#listening.get(sessionId) ?? 0;
    this.#listening.set(sessionId, count + 1);
    if (count > 0) return;
    await this.#ready;
    await redisOperation(this.#subscriber, NAME, 'listen', () =>
      this.#subscriber.subscribe(this.#sessionPrefix + sessionId),
    ).catch((error: unknown) => {
      this.#forget(sessionId);
      throw error;
    });
  }

  async unlisten(sessionId: string): Promise<void> {
    if (!this.#forget(sessionId)) return;
    await this.#subscriber.unsubscribe(this.#sessionPrefix + sessionId).catch(() => undefined);
  }

  /** Subscribed session channels (for tests and load figures). */
  get listening(): number {
    return this.#listening.size;
  }

  async close(): Promise<void> {
    this.#listening.clear();
    if (this.#subscriber.status === 'ready') await this.#subscriber.quit().catch(() => undefined);
    this.#subscriber.disconnect();
  }

  /** One listener fewer; true when it was the last. */
  #forget(sessionId: string): boolean {
    const count = this.#listening.get(sessionId);
    if (count === undefined) return false;
    if (count > 1) {
      this.#listening.set(sessionId, count - 1);
      return false;
    }
    this.#listening.delete(sessionId);
    return true;
  }

  #publish(channel: string, payload: JsonObject): Promise<number> {
    return redisOperation(this.#client, NAME, 'publish', () =>
      this.#client.publish(channel, JSON.stringify(payload)),
    );
  }

  #receive(channel: string, text: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return; // not ours
    }
    if (!isJsonObject(payload)) return;
    if (channel === this.#own) this.onmessage?.(payload, { to: 'instance' });
    else if (channel === this.#all) {
      const from = payload.from;
      if (typeof from === 'string' && from !== this.instanceId)
        this.onmessage?.(payload, { to: 'all', from });
    } else if (channel.startsWith(this.#sessionPrefix)) {
      const sessionId = channel.slice(this.#sessionPrefix.length);
      // Still subscribed in Redis after `unlisten` forgot the session: heard as released.
      this.onmessage?.(
        payload,
        this.#listening.has(sessionId)
          ? { to: 'session', sessionId }
          : { to: 'session', sessionId, released: true },
      );
    }
  }
}
