/**
 * Console sessions ended (signed out) before their cookie expired: kept in the gateway's grant store (its
 * scope `:ended-sessions`, by session id, until the cookie's expiry), so that every instance sharing the
 * store refuses the cookie from then on, and told to the listeners here (a session's event streams end) and,
 * through the gateway's bus, to those of the other instances. `Approvals` holds one (it holds the grant
 * store).
 * @module
 */
import type { GrantStore } from '../stores/grant-store.js';

/** The grants' scope of ended console sessions, by session id (upstream names, the other scopes, have no ':'). */
const ENDED_SESSIONS = ':ended-sessions';

export class EndedSessions {
  /** The grant store in use (the gateway's may change before anything was stored: `Approvals.useStores`). */
  readonly #grants: () => GrantStore;
  /** Who hears of console sessions ended (the decision API's event streams). */
  readonly #listeners = new Set<(sessionId: string) => void>();
  #share: ((sessionId: string) => void) | undefined;

  constructor(grants: () => GrantStore) {
    this.#grants = grants;
  }

  /**
   * Remembers that a console session ended (signed out) until `until`, when its cookie expires anyway: in
   * the grant store, so that every instance sharing it refuses the cookie from now on. Then the session's
   * listeners here hear of it (its event streams end), and those of the other instances when they share a
   * bus.
   */
  async end(sessionId: string, until: number): Promise<void> {
    await this.#grants().grant(ENDED_SESSIONS, sessionId, until);
    this.endedElsewhere(sessionId);
    this.#share?.(sessionId);
  }

  /** Hears of every console session ended, here or on another instance; returns an unsubscribe. */
  onEnded(listener: (sessionId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A console session ended on another instance: this one's listeners hear of it. */
  endedElsewhere(sessionId: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(sessionId);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  /** Tells the other instances of each session ended here, with `share` (undefined: no more). */
  share(share: ((sessionId: string) => void) | undefined): void {
    this.#share = share;
  }

  /**
   * Whether a console session, expiring at `expiresAt` (ms since the epoch), was ended (`end`). A grant
   * store that had to drop ended sessions before they expired (memory, past its bound of a scope) fails
   * closed: every session that expires no later than the last one it dropped counts as ended too (its
   * person signs in again).
   */
  async ended(sessionId: string, expiresAt: number): Promise<boolean> {
    const grants = this.#grants();
    const [ended, droppedUntil] = await Promise.all([
      grants.has(ENDED_SESSIONS, sessionId),
      grants.droppedUntil(ENDED_SESSIONS),
    ]);
    return ended || expiresAt <= droppedUntil;
  }
}
