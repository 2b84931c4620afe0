/**
 * The live sessions of a Streamable HTTP handler (handshake era) by id, and how they end: on DELETE, when
 * idle too long, when never used again after `initialize` (`handshakeTimeoutMs`), or when the handler
 * closes. `LiveSessions` builds on it: it opens them and finds the one a request names.
 *
 * With a session bus (sessions shared by several processes, see `SharedSessions`), the store's TTL
 * decides when a session expires: this process only drops its copies of sessions idle here (never
 * deleting a record another process may be serving), and keeps those whose `GET` stream it holds while
 * the record lives.
 * @module
 */
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { ServerSession } from '../../server/server-session.js';
import type { SessionBus } from '../../stores/session-bus.js';
import type { SessionStore } from '../../stores/session-store.js';
import type { ResolvedHttpOptions } from './http-options.js';
import type { HttpSessionTransport } from './http-session-transport.js';
import { SharedSessions } from './shared-sessions.js';

export interface LiveSession {
  session: ServerSession;
  transport: HttpSessionTransport;
  /** The subject of the principal that opened it (undefined: anonymous). */
  owner: string | undefined;
  /** When the store last heard of it (its `lastSeenAt`, kept to the second). */
  seenAt: number;
  /** A request came after `initialize` (the session is no longer swept after `handshakeTimeoutMs`). */
  confirmed: boolean;
  /** Used, or busy, since the last look for idle copies to unload (`sessionUnloadMs`). */
  used: boolean;
  /** The client's slot it holds (`maxSessionsPerClient`), given back when its transport closes. */
  slot: string | undefined;
}

/**
 * The live sessions by id, and their ending: the base of `LiveSessions`. A base class rather than an
 * object it holds, so that a request's session is found with no hop between the two.
 */
export abstract class LiveSessionMap {
  protected readonly options: ResolvedHttpOptions;
  protected readonly store: SessionStore;
  /** The live sessions, by id. */
  protected readonly live = new Map<string, LiveSession>();
  /** Sessions no request came to since `initialize`, oldest first, with when they opened. */
  protected readonly unconfirmedSince = new Map<string, number>();
  /** Sessions shared with other processes (a session bus). */
  protected readonly shared: SharedSessions | undefined;
  /** Records expire by the store's TTL: idle sessions are dropped here, never deleted from the store. */
  protected readonly expires: boolean;

  constructor(server: ServerRuntime, options: ResolvedHttpOptions, store: SessionStore, bus?: SessionBus) {
    this.options = options;
    this.store = store;
    this.expires = store.expires === true || bus !== undefined;
    if (bus) {
      this.shared = new SharedSessions(bus, store, server, {
        live: (id) => this.live.get(id),
        sessions: () => this.live.values(),
        drop: (id) => this.drop(id),
        onError: (error) => server.options.onError?.(error),
      });
    }
  }

  /** Sessions no request came to since `initialize` (the ones `handshakeTimeoutMs` ends). */
  get unconfirmed(): number {
    return this.unconfirmedSince.size;
  }

  /** How many sessions are live. */
  get size(): number {
    return this.live.size;
  }

  values(): IterableIterator<LiveSession> {
    return this.live.values();
  }

  /** Closes sessions idle past the timeout, and those never used after `initialize` past theirs. */
  async sweep(now: number): Promise<void> {
    const opened = now - this.options.handshakeTimeoutMs;
    for (const [id, at] of this.unconfirmedSince) {
      if (at > opened) break; // the rest opened later
      // A shared session may have been used in another process since.
      const used = this.expires && ((await this.store.get(id))?.lastSeenAt ?? 0) > at;
      await (used ? this.drop(id) : this.end(id));
    }
    const idle = now - this.options.sessionIdleTimeoutMs;
    if (!this.expires) {
      for (const id of await this.store.idleSince(idle)) await this.end(id);
      return;
    }
    for (const [id, live] of [...this.live]) {
      if (live.seenAt >= idle) continue;
      // A GET stream held here stays while the session lives (it may be used in other processes).
      if (live.transport.openStreams === 0 || !(await this.store.get(id))) await this.drop(id);
    }
  }

  /**
   * Unloads this process's copies of shared sessions found idle and unused at this look and the last
   * (the handler looks every `sessionUnloadMs`): confirmed, no stream a client reads (a `GET` stream whose
   * client went away, longer than its retry interval many times over, is let go: what is sent to the
   * session after that waits for no resumption), no request running or waiting
   * either way, no task of theirs running here, their records up to date. Their records stay: their next
   * request, here or elsewhere, takes them up again. Their client slots are given back (the caps count
   * the copies a process holds).
   */
  async unloadIdle(): Promise<void> {
    const shared = this.shared;
    if (!shared) return;
    const unloads: Promise<void>[] = [];
    for (const [id, live] of this.live) {
      const { transport, session } = live;
      const busy = !live.confirmed || !transport.idle || session.peer.busy || !shared.settled(id, session);
      if (busy || live.used) live.used = busy;
      else unloads.push(this.drop(id));
    }
    await Promise.all(unloads);
  }

  /** Ends a session: its record is deleted, and (shared) every process drops its copy. */
  async end(id: string): Promise<void> {
    const live = this.live.get(id);
    this.live.delete(id);
    this.unconfirmedSince.delete(id);
    this.shared?.forget(id); // out of the map already: its transport's close no longer does it
    await this.store.delete(id);
    await this.shared?.ended(id);
    await live?.session.close();
  }

  /** Closes this process's copy of a session; its record stays (it expires by the store's TTL). */
  async drop(id: string): Promise<void> {
    const live = this.live.get(id);
    this.live.delete(id);
    this.unconfirmedSince.delete(id);
    this.shared?.forget(id);
    await live?.session.close();
  }

  /** Ends every live session (drops them, when their records are shared). */
  async endAll(): Promise<void> {
    this.shared?.close();
    await Promise.all([...this.live.keys()].map((id) => (this.expires ? this.drop(id) : this.end(id))));
  }
}
