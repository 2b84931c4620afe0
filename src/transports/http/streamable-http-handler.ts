/**
 * The Streamable HTTP transport, server side, as a web-standard handler: `handle(Request): Response`.
 * One endpoint serves both eras. Handshake era (2025-03-26 … 2025-11-25): POST carries client
 * messages, GET opens (or resumes) the server's stream, DELETE ends a session. Stateless era
 * (2026-07-28): a POSTed request whose `_meta` names a protocol version is checked against its
 * metadata headers and served on its own (no session id, no resumption; closing the stream cancels
 * it). A server that speaks only the stateless era answers GET and DELETE with 405.
 * One toolwire `Server` serves every session from its shared registry; each session has its own small
 * protocol state and transport. The POSTs are read and served by `StreamableHttpPosts`.
 * @module
 */
import { isReply, revisionOf, toResponse, type HttpRequestLike, type Reply } from './http-exchange.js';
import { ErrorCode, asError } from '../../protocol/errors.js';
import type { Principal, Server } from '../../server/index.js';
import { serverCore } from '../../server/server.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import { MemorySessionStore } from '../../stores/session-store.js';
import { StoreError } from '../../stores/store-error.js';
import { HttpAuth } from './auth/http-auth.js';
import { resolveHttpOptions, type ResolvedHttpOptions, type StreamableHttpOptions } from './http-options.js';
import { ClientSlots } from './client-slots.js';
import { emptyReply, jsonRpcErrorResponse, storeUnavailableReply } from './http-status.js';
import { LegacySseEndpoints } from './legacy-sse-endpoints.js';
import { LiveSessions } from './live-sessions.js';
import { acceptable } from './media-type.js';
import { OriginGuard } from './origin-guard.js';
import { handshakeVersions, unsupportedVersionHeader } from './protocol-version-header.js';
import { SharedChanges } from './shared-changes.js';
import { StatelessExchanges } from './stateless-exchanges.js';
import { StreamableHttpPosts, statelessOnly } from './streamable-http-posts.js';

/**
 * A shared store that failed (Redis down or too slow): 503 with `Retry-After`, the JSON-RPC error saying
 * which store and operation failed, and why to the server's `onError`; anything else rejects as it came.
 */
function storeUnavailable(error: unknown, request: HttpRequestLike, server: ServerRuntime): Promise<Reply> {
  if (!(error instanceof StoreError)) return Promise.reject(asError(error));
  server.options.onError?.(error);
  return Promise.resolve(storeUnavailableReply(error, revisionOf(request)));
}

export class StreamableHttpHandler {
  readonly #server: ServerRuntime;
  readonly #options: ResolvedHttpOptions;
  readonly #guard: OriginGuard;
  readonly #sessions: LiveSessions;
  /** Requests served on a session of their own (stateless-era ones, and a stateless server's). */
  readonly #exchanges: StatelessExchanges;
  readonly #legacy: LegacySseEndpoints | undefined;
  readonly #sweeper: ReturnType<typeof setInterval> | undefined;
  /** Unloads idle copies of shared sessions (`sessionUnloadMs`). */
  readonly #unloader: ReturnType<typeof setInterval> | undefined;
  readonly #auth: HttpAuth | undefined;
  /** A stateless handler's share of other processes' changes (the `redis` option). */
  readonly #changes: SharedChanges | undefined;
  /** Reads and serves the POSTs, both eras'. */
  readonly #posts: StreamableHttpPosts;

  constructor(publicServer: Server, options: StreamableHttpOptions = {}) {
    const server = serverCore(publicServer);
    this.#server = server;
    this.#options = resolveHttpOptions(options);
    this.#guard = new OriginGuard(options);
    if (options.auth) this.#auth = new HttpAuth(options.auth, this.#options.endpoint);
    const store = options.sessionStore ?? options.redis?.sessions ?? new MemorySessionStore();
    // Sessions, listen streams and legacy SSE streams per client (`maxSessionsPerClient`).
    const slots = new ClientSlots(this.#options.maxSessionsPerClient);
    const bus = this.#options.stateless ? undefined : options.redis?.sessionBus;
    this.#sessions = new LiveSessions(server, this.#options, store, this.#auth, slots, bus);
    // A stateless handler shares no session, but its listen streams hear every process's changes.
    if (this.#options.stateless && options.redis) {
      const changes = new SharedChanges(options.redis.sessionBus, server, (error) =>
        server.options.onError?.(error),
      );
      options.redis.sessionBus.onmessage = (payload, address) => void changes.receive(payload, address);
      this.#changes = changes;
    }
    this.#exchanges = new StatelessExchanges(server, this.#options, slots);
    this.#posts = new StreamableHttpPosts(server, this.#options, this.#auth, this.#sessions, this.#exchanges);
    if (this.#options.legacySse) {
      const { legacySse } = this.#options;
      this.#legacy = new LegacySseEndpoints(server, legacySse, this.#options, this.#auth, slots, bus);
    }
    if (!this.#options.stateless) {
      const { sessionIdleTimeoutMs, handshakeTimeoutMs } = this.#options;
      const every = Math.max(1000, Math.min(sessionIdleTimeoutMs / 2, handshakeTimeoutMs / 2, 60_000));
      this.#sweeper = setInterval(() => void this.sweep(), every);
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
    const unloadMs = this.#options.sessionUnloadMs;
    if (unloadMs !== undefined && bus) {
      this.#unloader = setInterval(() => void this.unloadIdle(), unloadMs);
      (this.#unloader as { unref?: () => void }).unref?.();
    }
  }

  /** Live sessions on this handler. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /** Answers one request (the web-standard seam). */
  async handle(request: Request): Promise<Response> {
    return toResponse(await this.serve(request));
  }

  /**
   * Answers one request given as a web `Request` or a lighter view of one (the node adapter's), with a
   * web `Response` or a {@link JsonReply} (a whole answer the adapter writes without building a Response).
   */
  serve(request: HttpRequestLike): Promise<Reply> {
    // Not async: a request that needs no waiting (no async authentication, a JSON POST to a live
    // session) keeps no frame across an `await`; anything thrown still rejects.
    try {
      const routed = this.#route(request);
      if (!(routed instanceof Promise)) return Promise.resolve(routed);
      return routed.catch((error: unknown) => storeUnavailable(error, request, this.#server));
    } catch (error) {
      return storeUnavailable(error, request, this.#server);
    }
  }

  #route(request: HttpRequestLike): Promise<Reply> | Reply {
    const refused = this.#guard.check(request.headers.get('host'), request.headers.get('origin'));
    if (refused)
      return jsonRpcErrorResponse(
        403,
        ErrorCode.InvalidRequest,
        `Forbidden: ${refused}`,
        {},
        revisionOf(request),
      );
    const path = request.path ?? new URL(request.url).pathname;
    const metadata = this.#auth?.metadata(request, path);
    if (metadata) return metadata;
    const legacy = path !== this.#options.endpoint && this.#legacy?.owns(path) ? this.#legacy : undefined;
    if (path !== this.#options.endpoint && !legacy)
      return jsonRpcErrorResponse(
        404,
        ErrorCode.InvalidRequest,
        `Not found: ${path}`,
        {},
        revisionOf(request),
      );
    // Every request is authenticated, whatever its era or method.
    if (!this.#auth) return this.#dispatch(request, path, legacy, undefined);
    return this.#auth
      .authenticate(request)
      .then((principal) =>
        isReply(principal) ? principal : this.#dispatch(request, path, legacy, principal),
      );
  }

  #dispatch(
    request: HttpRequestLike,
    path: string,
    legacy: LegacySseEndpoints | undefined,
    principal: Principal | undefined,
  ): Promise<Reply> | Reply {
    if (legacy) return legacy.handle(request, path, principal);
    switch (request.method) {
      case 'POST':
        return this.#posts.post(request, principal);
      case 'GET':
        return this.#get(request, principal);
      case 'DELETE':
        return this.#delete(request, principal);
      default:
        return jsonRpcErrorResponse(
          405,
          ErrorCode.InvalidRequest,
          `Method not allowed: ${request.method}`,
          { allow: this.#options.stateless || statelessOnly(this.#server) ? 'POST' : 'GET, POST, DELETE' },
          revisionOf(request),
        );
    }
  }

  /** Open streams and waiting requests across live sessions and stateless exchanges (what a leak would grow). */
  get load(): { streams: number; pendingRequests: number } {
    let streams = 0;
    let pendingRequests = 0;
    for (const { transport } of this.#sessions.values()) {
      streams += transport.openStreams;
      pendingRequests += transport.pendingRequests;
    }
    const exchanges = this.#exchanges.load;
    return {
      streams: streams + exchanges.streams,
      pendingRequests: pendingRequests + exchanges.pendingRequests,
    };
  }

  /** Closes sessions idle past the timeout. */
  sweep(now = Date.now()): Promise<void> {
    // A shared store that fails (Redis down) is reported; the next sweep tries again.
    return this.#sessions
      .sweep(now)
      .catch((error: unknown) => this.#server.options.onError?.(asError(error)));
  }

  /**
   * @internal Unloads the copies of shared sessions idle since the last call (the handler calls it every
   * `sessionUnloadMs`; see `LiveSessions.unloadIdle`).
   */
  unloadIdle(): Promise<void> {
    return this.#sessions
      .unloadIdle()
      .catch((error: unknown) => this.#server.options.onError?.(asError(error)));
  }

  /**
   * Closes every session and exchange of this handler. With `graceMs`, first starts nothing new (503 for
   * new sessions, exchanges and legacy streams; requests on open sessions get -32603) and lets the
   * running requests finish, at most `graceMs` (those still running then are cancelled and answered
   * with -32603); a second `close()` meanwhile ends the wait.
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    this.#posts.refuseNew();
    this.#exchanges.refuseNew();
    this.#legacy?.refuseNew();
    if (this.#sweeper) clearInterval(this.#sweeper);
    if (this.#unloader) clearInterval(this.#unloader);
    this.#changes?.close();
    const graceMs = options.graceMs ?? 0;
    if (graceMs > 0) {
      const mine = [...this.#server.sessions].filter((session) => this.#owns(session.peer.transport));
      await Promise.all(mine.map((session) => session.drain(graceMs)));
    }
    await this.#sessions.endAll();
    await this.#exchanges.close();
    await this.#legacy?.close();
  }

  /** Whether a session's transport is one of this handler's. */
  #owns(transport: object | undefined): boolean {
    if (transport === undefined) return false;
    return (
      this.#sessions.owns(transport) ||
      this.#exchanges.has(transport) ||
      (this.#legacy?.hasTransport(transport) ?? false)
    );
  }

  async #get(request: HttpRequestLike, principal: Principal | undefined): Promise<Reply> {
    if (statelessOnly(this.#server))
      return this.#notAllowed(request, 'this server speaks only the stateless era (2026-07-28)');
    if (this.#options.stateless) return this.#notAllowed(request, 'this server is stateless');
    const refused = unsupportedVersionHeader(request, handshakeVersions(this.#server.versions));
    if (refused) return refused;
    if (!acceptable(request.headers.get('accept')).eventStream) {
      return jsonRpcErrorResponse(
        406,
        ErrorCode.InvalidRequest,
        'Not Acceptable: Accept must list text/event-stream',
        {},
        revisionOf(request),
      );
    }
    const found = await this.#sessions.find(request, principal);
    if (isReply(found)) return found;
    const lastEventId = request.headers.get('last-event-id');
    return lastEventId ? found.transport.resume(lastEventId) : found.transport.openStandalone();
  }

  async #delete(request: HttpRequestLike, principal: Principal | undefined): Promise<Reply> {
    if (statelessOnly(this.#server))
      return this.#notAllowed(request, 'this server speaks only the stateless era (2026-07-28)');
    if (this.#options.stateless) return this.#notAllowed(request, 'this server is stateless');
    const refused = unsupportedVersionHeader(request, handshakeVersions(this.#server.versions));
    if (refused) return refused;
    const found = await this.#sessions.find(request, principal);
    if (isReply(found)) return found;
    await this.#sessions.end(found.transport.sessionId ?? '');
    return emptyReply(200);
  }

  #notAllowed(request: HttpRequestLike, why: string): Reply {
    return jsonRpcErrorResponse(
      405,
      ErrorCode.InvalidRequest,
      `Method not allowed: ${why}`,
      { allow: 'POST' },
      revisionOf(request),
    );
  }
}
