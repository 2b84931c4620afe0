/**
 * `notifications/<feature>/list_changed` for tools, resources and prompts: one notification per burst of
 * registry changes (debounced), to two audiences, each only for changes it has not seen:
 * - handshake-era sessions that have initialized. Each session remembers the registry version it knows
 *   of; a change made before a session initialized is part of what it gets from its first list request,
 *   so it never causes a notification. A connection that never initialized gets none.
 * - open `subscriptions/listen` streams (2026-07-28) that asked for this notification; a stream opened
 *   after a change but before the burst's notification does not get it.
 * @module
 */
import type { BugReporter } from './reported-bug.js';
import { Coalescer } from './coalescer.js';
import type { SessionView } from './session-view.js';
import type { ListenSubscription } from './subscriptions/listen-subscription.js';

/** What a feature needs from the server that owns it. */
export interface FeatureHost {
  /** Items per list page. */
  readonly pageSize: number;
  /** Changes within this window send one `list_changed`. */
  readonly listChangedDebounceMs: number;
  /** The live sessions. */
  sessions(): Iterable<SessionView>;
  /** The open `subscriptions/listen` streams. */
  subscriptions(): Iterable<ListenSubscription>;
  /** A registry changed: `method` is the notification its change owes (for processes sharing sessions). */
  listChanged?(method: string): void;
  /** A prompt getter's or resource reader's invalid result (see `reportedBug`). */
  readonly onPromptBug?: BugReporter | undefined;
  readonly onResourceBug?: BugReporter | undefined;
}

/** A session bound after it initialized was never told of the capability: it gets no notifications. */
const NEVER = -1;

export class ListChanged {
  readonly #method: string;
  readonly #version: () => number;
  readonly #host: FeatureHost;
  readonly #seen = new WeakMap<SessionView, number>();
  /** Listen streams that saw a change of this burst. */
  readonly #pending = new Set<ListenSubscription>();
  readonly #coalescer: Coalescer;

  /**
   * @param method the notification, e.g. `notifications/resources/list_changed`
   * @param version the registries' combined version: increases with every change
   */
  constructor(method: string, version: () => number, host: FeatureHost) {
    this.#method = method;
    this.#version = version;
    this.#host = host;
    this.#coalescer = new Coalescer(host.listChangedDebounceMs, () => this.#flush());
  }

  /**
   * Starts tracking a session (from the feature's `bind`). A session bound before its handshake (every
   * new session) is recorded only when a change comes: no entry means "bound before any change since"
   * — so creating a session, which every stateless request does, costs nothing here.
   */
  bind(session: SessionView): void {
    if (session.protocolVersion !== undefined) this.#seen.set(session, NEVER);
  }

  /** A registry changed (call from `registry.onChange`). */
  changed(): void {
    this.#host.listChanged?.(this.#method);
    const version = this.#version();
    for (const session of this.#host.sessions()) {
      const seen = this.#seen.get(session);
      if (seen === NEVER) continue;
      // Not ready yet: it will list after its handshake, this change included. Ready and never recorded:
      // it was bound before this change, so it is owed a notification (any version below this one).
      if (!session.ready) this.#seen.set(session, version);
      else if (seen === undefined) this.#seen.set(session, version - 1);
    }
    for (const subscription of this.#host.subscriptions()) {
      if (subscription.wantsListChanged(this.#method)) this.#pending.add(subscription);
    }
    this.#coalescer.trigger();
  }

  cancel(): void {
    this.#coalescer.cancel();
    this.#pending.clear();
  }

  #flush(): void {
    const version = this.#version();
    for (const session of this.#host.sessions()) {
      const seen = this.#seen.get(session);
      if (!session.ready || seen === undefined || seen === NEVER || version <= seen) continue;
      this.#seen.set(session, version);
      void session.peer.notify(this.#method).catch(() => undefined);
    }
    for (const subscription of this.#pending) void subscription.notify(this.#method);
    this.#pending.clear();
  }
}
