/**
 * A message bus on Redis pub/sub (channel `<prefix><channel>`, default `toolwire:gateway:events`): every
 * process subscribed hears every message, its own included. Pub/sub keeps nothing, and Redis drops a
 * subscriber that falls too far behind (`client-output-buffer-limit pubsub`), so a bus carries news only.
 * `instanceNumber()` hands each process a number no other got from the same bus (a counter,
 * `<prefix><channel>:instances`).
 * @module
 */
import type { Redis } from 'ioredis';
import type { JsonObject } from '../protocol/jsonrpc.js';
import type { BusSubscriber, MessageBus } from './message-bus.js';
import { prefixOf, type RedisStoreOptions } from './redis-options.js';
import { redisOperation } from './redis-operation.js';
import { RedisSubscriber } from './redis-subscriber.js';

export interface RedisMessageBusOptions extends RedisStoreOptions {
  /** The channel's name after the prefix (default `gateway:events`). */
  channel?: string;
  /** The pub/sub connection to share with other stores (default: one of its own, closed by `close()`). */
  subscriber?: RedisSubscriber;
}

const NAME = 'Redis message bus';

export class RedisMessageBus implements MessageBus {
  readonly #client: Redis;
  readonly #channel: string;
  readonly #subscriber: RedisSubscriber;
  readonly #ownsSubscriber: boolean;

  constructor(client: Redis, options: RedisMessageBusOptions = {}) {
    this.#client = client;
    this.#channel = `${prefixOf(options)}${options.channel ?? 'gateway:events'}`;
    this.#ownsSubscriber = options.subscriber === undefined;
    this.#subscriber = options.subscriber ?? new RedisSubscriber(client);
  }

  async publish(message: JsonObject): Promise<void> {
    const text = JSON.stringify(message);
    await redisOperation(this.#client, NAME, 'publish', () => this.#client.publish(this.#channel, text));
  }

  subscribe(subscriber: BusSubscriber): Promise<() => void> {
    // The subscriber's own messages (every instance hears its own publishes) are dropped before parsing.
    const own = subscriber.from === undefined ? undefined : `{"from":${JSON.stringify(subscriber.from)},`;
    return this.#subscriber.subscribe(this.#channel, {
      message: (text) => {
        if (own !== undefined && text.startsWith(own)) return;
        const message = JSON.parse(text) as JsonObject;
        if (subscriber.from === undefined || message.from !== subscriber.from) subscriber.message(message);
      },
      missed: () => subscriber.missed?.(),
    });
  }

  /** A number (from 1) no other process got from this bus. */
  instanceNumber(): Promise<number> {
    return redisOperation(this.#client, NAME, 'instanceNumber', () =>
      this.#client.incr(`${this.#channel}:instances`),
    );
  }

  /** Closes the subscriber connection when the bus opened it. */
  close(): void {
    if (this.#ownsSubscriber) this.#subscriber.close();
  }
}
