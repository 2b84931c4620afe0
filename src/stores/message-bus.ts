/**
 * A message bus: what one process publishes, every process sharing the bus receives (itself included), in
 * the order it was published. Delivery is at most once — a subscriber that was disconnected misses what
 * was published meanwhile, and is told so (`missed`) when it is back — so a bus carries news (a gateway's
 * live events), never the only copy of anything.
 * @module
 */
import type { JsonObject } from '../protocol/jsonrpc.js';

export interface BusSubscriber {
  message(message: JsonObject): void;
  /**
   * The `from` member of this subscriber's own messages, which it does not want back: the bus never hands
   * them to it (one published with `from` as its first member is told apart unread, by its text's start).
   */
  from?: string;
  /** Messages may have been missed (the connection to a shared bus was lost, and is back). */
  missed?(): void;
}

export interface MessageBus {
  /** Sends `message` to every subscriber of every process sharing the bus. */
  publish(message: JsonObject): Promise<void>;
  /** Calls `subscriber` for every message from now on; resolves (with the unsubscribe) once it is listening. */
  subscribe(subscriber: BusSubscriber): Promise<() => void>;
  /** A number (from 1) no other process got from this bus: what a process tells its messages apart by. */
  instanceNumber(): Promise<number>;
}

/** A bus within one process (several gateways in one process share one). Delivery is synchronous. */
export class MemoryMessageBus implements MessageBus {
  readonly #subscribers = new Set<BusSubscriber>();
  #instances = 0;

  publish(message: JsonObject): Promise<void> {
    for (const subscriber of [...this.#subscribers]) {
      if (subscriber.from !== undefined && message.from === subscriber.from) continue;
      try {
        subscriber.message(structuredClone(message));
      } catch {
        // a subscriber's failure is its own
      }
    }
    return Promise.resolve();
  }

  subscribe(subscriber: BusSubscriber): Promise<() => void> {
    this.#subscribers.add(subscriber);
    return Promise.resolve(() => void this.#subscribers.delete(subscriber));
  }

  instanceNumber(): Promise<number> {
    return Promise.resolve(++this.#instances);
  }
}
