/**
 * The one subscriber connection a process's Redis stores share for pub/sub (a connection that subscribes
 * can run nothing else): opened with the first subscription, as a copy of the stores' connection. When it
 * comes back after a disconnection it subscribes again to every channel, then tells each listener that
 * messages may have been missed meanwhile (`missed`), so that it can read again what it waits for.
 * @module
 */
import type { Redis } from 'ioredis';
import { redisOperation } from './redis-operation.js';

export interface ChannelListener {
  message(text: string): void;
  missed?(): void;
}

export class RedisSubscriber {
  readonly #client: Redis;
  readonly #channels = new Map<string, Set<ChannelListener>>();
  #connection: Redis | undefined;
  #connected = false;
  #closed = false;

  constructor(client: Redis) {
    this.#client = client;
  }

  /** Listens to `channel`; resolves with the unsubscribe once Redis confirmed the subscription. */
  async subscribe(channel: string, listener: ChannelListener): Promise<() => void> {
    if (this.#closed) throw new Error('the Redis subscriber is closed');
    const connection = this.#open();
    let listeners = this.#channels.get(channel);
    if (!listeners) {
      this.#channels.set(channel, (listeners = new Set()));
      try {
        await redisOperation(connection, 'Redis subscriber', `subscribe ${channel}`, () =>
          connection.subscribe(channel),
        );
      } catch (error) {
        if (listeners.size === 0) this.#channels.delete(channel);
        throw error;
      }
    }
    listeners.add(listener);
    return () => {
      if (!listeners.delete(listener) || listeners.size > 0) return;
      this.#channels.delete(channel);
      if (!this.#closed) void connection.unsubscribe(channel).catch(() => undefined);
    };
  }

  /** Closes the subscriber connection. */
  close(): void {
    this.#closed = true;
    this.#channels.clear();
    this.#connection?.disconnect();
  }

  #open(): Redis {
    if (this.#connection) return this.#connection;
    // Subscriptions are renewed here, on 'ready', so that `missed` is called once they hold again.
    const connection = this.#client.duplicate({ autoResubscribe: false });
    this.#connection = connection;
    connection.on('error', () => undefined);
    connection.on('message', (channel: string, text: string) => {
      for (const listener of this.#channels.get(channel) ?? []) {
        try {
          listener.message(text);
        } catch {
          // a listener's failure is its own
        }
      }
    });
    connection.on('ready', () => {
      if (!this.#connected) {
        this.#connected = true;
        return;
      }
      const channels = [...this.#channels.keys()];
      if (channels.length === 0) return;
      connection.subscribe(...channels).then(
        () => {
          for (const listeners of this.#channels.values())
            for (const listener of listeners) listener.missed?.();
        },
        () => undefined, // the connection broke again: the next 'ready' tries again
      );
    });
    return connection;
  }
}
