/**
 * Session records of a stateful HTTP server: who owns a session, which revision it speaks, when it was
 * last used. The live objects (the protocol session and its transport) stay in the process; the record
 * is what a shared store (Redis) can hold for several processes.
 * @module
 */
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types/lifecycle.js';

/**
 * What a handshake-era session negotiated and asked for, so that any process sharing the store can serve
 * it: written once the `initialize` is answered, and again when the log level or a subscription changes.
 */
export interface SessionState {
  protocolVersion?: string | undefined;
  clientInfo?: Implementation | undefined;
  clientCapabilities?: ClientCapabilities | undefined;
  logLevel?: LoggingLevel | undefined;
  /** URIs of `resources/subscribe`. */
  subscriptions?: string[] | undefined;
}

export interface SessionRecord extends SessionState {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  /** The authenticated principal that opened the session, when there is one. */
  principal?: string;
}

export interface SessionStore {
  /**
   * Records expire by themselves (a TTL after `lastSeenAt`, as Redis keeps them), and the store is shared
   * by several processes: a handler then never deletes idle records (another process may be serving the
   * session); it only drops its own copies of sessions idle there.
   */
  readonly expires?: boolean;
  create(record: SessionRecord): Promise<void> | void;
  get(id: string): Promise<SessionRecord | undefined> | SessionRecord | undefined;
  update(id: string, patch: Partial<Omit<SessionRecord, 'id'>>): Promise<void> | void;
  /**
   * Adds URIs to a record's `subscriptions` and removes others, writing only those (an unknown id is
   * ignored). Optional: without it, a subscription change rewrites the whole list with `update`, so
   * that a session's N subscriptions cost O(N²) bytes.
   */
  updateSubscriptions?(
    id: string,
    subscribed: readonly string[],
    unsubscribed: readonly string[],
  ): Promise<void> | void;
  delete(id: string): Promise<void> | void;
  /** Ids of sessions not seen since `before` (ms since epoch). */
  idleSince(before: number): Promise<string[]> | string[];
  count(): Promise<number> | number;
}

/** The in-memory default. */
export class MemorySessionStore implements SessionStore {
  readonly #records = new Map<string, SessionRecord>();

  create(record: SessionRecord): void {
    this.#records.set(record.id, { ...record });
  }

  get(id: string): SessionRecord | undefined {
    const record = this.#records.get(id);
    return record && { ...record };
  }

  update(id: string, patch: Partial<Omit<SessionRecord, 'id'>>): void {
    const record = this.#records.get(id);
    if (record) Object.assign(record, patch);
  }

  updateSubscriptions(id: string, subscribed: readonly string[], unsubscribed: readonly string[]): void {
    const record = this.#records.get(id);
    if (!record) return;
    const uris = new Set(record.subscriptions);
    for (const uri of unsubscribed) uris.delete(uri);
    for (const uri of subscribed) uris.add(uri);
    record.subscriptions = uris.size > 0 ? [...uris] : undefined;
  }

  delete(id: string): void {
    this.#records.delete(id);
  }

  idleSince(before: number): string[] {
    const out: string[] = [];
    for (const record of this.#records.values()) if (record.lastSeenAt < before) out.push(record.id);
    return out;
  }

  count(): number {
    return this.#records.size;
  }
}
