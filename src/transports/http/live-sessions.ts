/**
 * The live sessions of a Streamable HTTP handler (handshake era): each session's server side and
 * transport, who opened it, and its record in the session store. Opens a session for `initialize`
 * (within the caps: `maxSessions` in all, `maxSessionsPerClient` per client) and finds the one a request
 * names by `Mcp-Session-Id` (for its owner only); its base, `LiveSessionMap`, holds them by id and ends
 * them (on DELETE, when idle too long, when never used again after `initialize`, when the handler closes).
 *
 * With a session bus (sessions shared by several processes, see `SharedSessions`), a session another
 * process opened is taken up from its record on its first request here, for its owner only.
 * @module
 */
import type { HttpRequestLike, Reply } from './http-exchange.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Principal } from '../../server/index.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { SessionBus } from '../../stores/session-bus.js';
import type { SessionStore } from '../../stores/session-store.js';
import type { HttpAuth } from './auth/http-auth.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { flatString } from './flat-string.js';
import { HttpSessionTransport, type HttpSessionConfig } from './http-session-transport.js';
import type { SessionTransportRef } from './http-session-transport-options.js';
import { QueuedOutput } from '../queued-output.js';
import type { ClientSlots } from './client-slots.js';
import { jsonRpcErrorResponse, tooManyForClient } from './http-status.js';
import { LiveSessionMap, type LiveSession } from './live-session-map.js';

/** A session taken up from its record; `foreign`: another subject's; `full`: at `maxSessions`. */
type Loaded = LiveSession | 'foreign' | 'full' | undefined;

/** How stale a session's `lastSeenAt` may get in the store (one write per second, not per request). */
const SEEN_RESOLUTION_MS = 1000;

export class LiveSessions extends LiveSessionMap {
  readonly #server: ServerRuntime;
  readonly #auth: HttpAuth | undefined;
  readonly #slots: ClientSlots;
  /**
   * Every session transport opened here, per-request ones (stateless servers) included, with its session
   * (once connected).
   */
  readonly #transports = new WeakMap<object, LiveSession | undefined>();
  /** What every session transport opened here shares: its options, and hooks taking the transport. */
  readonly #config: HttpSessionConfig;
  /** Sessions being taken up from their records, by id and subject. */
  readonly #loading = new Map<string, Promise<Loaded>>();

  constructor(
    server: ServerRuntime,
    options: ResolvedHttpOptions,
    store: SessionStore,
    auth: HttpAuth | undefined,
    slots: ClientSlots,
    bus?: SessionBus,
  ) {
    new QueuedOutput(options); // its limits checked now, not at the first SSE stream
    super(server, options, store, bus);
    this.#server = server;
    this.#auth = auth;
    this.#slots = slots;
    this.#config = {
      eventStore: options.eventStore,
      responseMode: options.responseMode,
      retryMs: options.retryMs,
      keepAliveMs: options.keepAliveMs,
      // The memory stores never fail; a shared session's record, and stores given to the server, may.
      storesCanFail:
        bus !== undefined ||
        store.expires === true ||
        (server.options.rateLimit || undefined)?.store !== undefined ||
        server.options.tasks?.store !== undefined,
      maxQueuedBytes: options.maxQueuedBytes,
      maxQueuedMessages: options.maxQueuedMessages,
      protocolVersion: (transport) => this.#transports.get(transport)?.session.protocolVersion,
      closed: (transport) => this.#closed(transport),
    };
  }

  /** Whether a transport is one of the session transports opened here. */
  owns(transport: object): boolean {
    return this.#transports.has(transport);
  }

  /**
   * Opens a session for an `initialize` from `client` (undefined: a client not counted) and records it
   * in the store: 503 when there are too many sessions, 429 when the client holds its share already.
   */
  async open(
    principal: Principal | undefined,
    client: string | undefined,
    revision: string | null,
  ): Promise<LiveSession | Reply> {
    const { maxSessions, maxSessionsPerClient, handshakeTimeoutMs } = this.options;
    if (this.live.size >= maxSessions) return this.#full(revision);
    const slot = this.#slots.take(client);
    if (slot === false)
      return tooManyForClient(maxSessionsPerClient, handshakeTimeoutMs, undefined, revision);
    const id = flatString(crypto.randomUUID()); // kept for the session's life: one string, not a tree
    let live: LiveSession;
    try {
      live = await this.connect(id, principal);
    } catch (error) {
      this.#slots.release(slot);
      throw error;
    }
    live.slot = slot;
    this.live.set(id, live);
    const now = Date.now();
    this.unconfirmedSince.set(id, now);
    try {
      await this.store.create({
        id,
        createdAt: now,
        lastSeenAt: now,
        ...(principal ? { principal: principal.subject } : {}),
      });
    } catch (error) {
      await this.drop(id); // no record, no session (the initialize gets 503)
      throw error;
    }
    return live;
  }

  /**
   * The session a request names, if it exists and belongs to the request's principal (else 404). Not
   * async: a promise only while an async store records when the session was last seen.
   */
  find(
    request: HttpRequestLike,
    principal: Principal | undefined,
  ): LiveSession | Reply | Promise<LiveSession | Reply> {
    const id = request.headers.get('mcp-session-id');
    if (!id)
      return jsonRpcErrorResponse(
        400,
        ErrorCode.InvalidRequest,
        'Bad Request: the Mcp-Session-Id header is required',
        {},
        request.headers.get('mcp-protocol-version'),
      );
    const live = this.live.get(id);
    if (!live && this.shared) return this.#takeUp(id, request, principal);
    return this.#found(live, request, principal);
  }

  /** The live session a request names, for its owner only (else 404), its last use recorded. */
  #found(
    live: LiveSession | undefined,
    request: HttpRequestLike,
    principal: Principal | undefined,
  ): LiveSession | Reply | Promise<LiveSession | Reply> {
    // Another subject's session is no session for this caller (hijacking a session id gets nowhere).
    if (live && live.owner !== principal?.subject) this.#auth?.foreignSession(request, principal);
    if (!live || live.owner !== principal?.subject)
      return jsonRpcErrorResponse(
        404,
        ErrorCode.InvalidRequest,
        'Not Found: the session does not exist or has ended',
        {},
        request.headers.get('mcp-protocol-version'),
      );
    const id = live.transport.sessionId ?? '';
    // A copy unloaded (or dropped) while it was being taken up: the request takes the session up again, or
    // gets 404 when it has ended.
    if (this.live.get(id) !== live) return this.find(request, principal);
    if (!live.confirmed) {
      live.confirmed = true;
      this.unconfirmedSince.delete(id);
    }
    live.used = true;
    const now = Date.now();
    if (now - live.seenAt >= SEEN_RESOLUTION_MS) {
      live.seenAt = now;
      const recorded = this.store.update(id, { lastSeenAt: now });
      // The same for a copy unloaded while its use was being recorded.
      if (recorded instanceof Promise)
        return recorded.then(() =>
          this.live.get(id) === live ? authenticated(live, principal) : this.find(request, principal),
        );
    }
    return authenticated(live, principal);
  }

  /**
   * A session another process opened (or this one dropped), taken up from its record: for its owner only,
   * once however many requests for it come at once; 404 when it has no record (ended, expired).
   */
  async #takeUp(
    id: string,
    request: HttpRequestLike,
    principal: Principal | undefined,
  ): Promise<LiveSession | Reply> {
    const key = `${id}\n${principal?.subject ?? ''}`;
    let loading = this.#loading.get(key);
    if (!loading) {
      loading = this.#load(id, principal).finally(() => this.#loading.delete(key));
      this.#loading.set(key, loading);
    }
    const loaded = await loading;
    if (loaded === 'full') return this.#full(request.headers.get('mcp-protocol-version'));
    // Another subject's session is no session for this caller (as `#found` says of a live one).
    if (loaded === 'foreign') this.#auth?.foreignSession(request, principal);
    return this.#found(loaded === 'foreign' ? undefined : (loaded ?? this.live.get(id)), request, principal);
  }

  /** A session taken up from its record; `foreign` when it is another subject's, `full` at `maxSessions`. */
  async #load(
    id: string,
    principal: Principal | undefined,
  ): Promise<LiveSession | 'foreign' | 'full' | undefined> {
    const record = await this.store.get(id);
    if (!record || this.live.has(id)) return undefined;
    if (record.principal !== principal?.subject) return 'foreign';
    if (this.live.size >= this.options.maxSessions) return 'full';
    const live = await this.connect(id, principal);
    if (!this.#server.resumeSession(live.session, record)) {
      await live.session.close();
      return undefined;
    }
    this.shared?.resumed(id, live.session);
    live.confirmed = true;
    this.live.set(id, live);
    // Used again after its handshake (the process that opened it no longer ends it as never used).
    await this.store.update(id, { lastSeenAt: Math.max(live.seenAt, record.createdAt + 1) });
    return live;
  }

  /** 503: this process serves `maxSessions` sessions already. */
  #full(revision: string | null): Reply {
    return jsonRpcErrorResponse(
      503,
      ErrorCode.InternalError,
      'Service Unavailable: too many sessions',
      { 'retry-after': String(Math.max(1, Math.ceil(this.options.handshakeTimeoutMs / 1000))) },
      revision,
    );
  }

  /**
   * Connects a session of the server to a new session transport. With a `sessionId`, the session leaves
   * the map and the store when its transport closes; without one it is a stateless server's per-request
   * session, which nothing records.
   */
  async connect(sessionId: string | undefined, principal: Principal | undefined): Promise<LiveSession> {
    const route = sessionId === undefined ? undefined : this.shared?.route(sessionId);
    const transport = new HttpSessionTransport(this.#config, sessionId, route);
    this.#transports.set(transport, undefined);
    const session = await this.#server.connect(transport, principal ? { principal } : {});
    if (route) route.session = session;
    const live: LiveSession = {
      session,
      transport,
      owner: principal?.subject,
      seenAt: Date.now(),
      confirmed: false,
      used: true,
      slot: undefined,
    };
    this.#transports.set(transport, live);
    return live;
  }

  /**
   * A session transport closed (after its session's peer): its client slot is given back; a session's
   * copy leaves the map, and the store unless its record is shared (another process may serve it).
   */
  #closed(transport: SessionTransportRef): void {
    const live = this.#transports.get(transport);
    const sessionId = transport.sessionId;
    if (!live || sessionId === undefined) return;
    if (!live.confirmed) this.unconfirmedSince.delete(sessionId);
    this.#slots.release(live.slot);
    live.slot = undefined;
    if (this.live.get(sessionId) !== live) return; // taken up again meanwhile
    this.live.delete(sessionId);
    this.shared?.forget(sessionId);
    if (!this.expires) void this.store.delete(sessionId);
  }
}

/** The session, now serving its requests as `principal` (same subject, fresher scopes). */
function authenticated(live: LiveSession, principal: Principal | undefined): LiveSession {
  live.session.authenticate(principal);
  return live;
}
