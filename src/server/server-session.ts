/**
 * One connection to a client. It serves both eras: `initialize` starts the handshake era for the
 * connection (revision, client capabilities and log level kept here); a request whose `_meta` carries a
 * protocol version is served statelessly, from what that request says (2026-07-28). The handlers are the
 * server's (`HandlerTable`, shared by every session's peer); the session works out each request's scope
 * and finishes its result for the era (`serve`).
 * @module
 */
import { Peer, type PeerOptions, type RequestContext, type RequestOptions } from '../protocol/engine/peer.js';
import { ErrorCode, LocalErrorCode, ProtocolError } from '../protocol/errors.js';
import { echoedName } from '../protocol/echoed-name.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { profileFor, type HandshakeRevision, type RevisionProfile } from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import type { ListRootsResult } from '../protocol/types/client-features.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types/lifecycle.js';
import { hasStatelessMeta } from '../protocol/types/stateless.js';
import type { Principal } from './auth/principal.js';
import { checkedAnswer } from './checked-answer.js';
import { ServerError } from './server-error.js';
import { internCapabilities, internClientInfo } from './interned-clients.js';
import type { HandlerEntry, HandlerRequest, ServingSession } from './handler-table.js';
import type { ServerRequest } from './middleware/request-chain.js';
import {
  statelessScope,
  type HandshakeScope,
  type RequestScope,
  type StatelessScope,
} from './request-scope.js';
import { ChainRequest } from './middleware/request-chain.js';
import type { ServerCore } from './server-core.js';

import type { ClientView } from './tool-context.js';

type Phase = 'new' | 'initialized' | 'ready' | 'closed';

/** How long a closing connection's running requests may take, by default (ms). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export class ServerSession implements ServingSession {
  readonly peer: Peer<ServingSession>;
  readonly #core: ServerCore;
  #connection: object | undefined;
  #phase: Phase = 'new';
  #profile: RevisionProfile | undefined;
  #clientInfo: Implementation | undefined;
  #clientCapabilities: ClientCapabilities = {};
  #logLevel: LoggingLevel | undefined;
  #handshakeScope: HandshakeScope | undefined;
  #principal: Principal | undefined;
  #stateVersion = 0;

  onclose?: () => void;
  oninitialized?: () => void;
  /** The server's own bookkeeping, called before `onclose`. */
  readonly #closed: ((session: ServerSession) => void) | undefined;

  /**
   * The engine's options of each server's sessions: one object, its hooks told which session they are
   * called for (no functions of their own per session: an idle session's memory is mostly what it holds).
   */
  static readonly #peerOptions = new WeakMap<ServerCore, PeerOptions<ServingSession>>();

  /** @param closed internal: the server's own bookkeeping, called before `onclose` */
  constructor(core: ServerCore, closed?: (session: ServerSession) => void) {
    this.#core = core;
    this.#closed = closed;
    let options = ServerSession.#peerOptions.get(core);
    if (!options) {
      options = {
        handlers: core.handlers.engine,
        defaultTimeout: core.options.requestTimeout,
        acceptBatch: (session) => (session as ServerSession).#profile?.features.batching ?? false,
        // `id: null` (JSON-RPC 2.0, every revision before 2025-11-25) until a revision that may leave it
        // out is negotiated: before `initialize`, the client's revision is not known yet.
        unknownErrorId: (session) =>
          (session as ServerSession).#profile?.features.optionalErrorId ? undefined : null,
        closed: (session) => {
          const self = session as ServerSession;
          self.#phase = 'closed';
          self.#closed?.(self);
          self.onclose?.();
        },
        error: (error) => core.options.onError?.(error),
        maxBatchSize: core.options.maxBatchSize,
        maxRequestsInFlight: core.options.maxRequestsInFlight,
        maxBatchAnswerBytes: core.options.maxBatchAnswerBytes,
        endGraceMs: core.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
      };
      ServerSession.#peerOptions.set(core, options);
    }
    this.peer = new Peer<ServingSession>(options, this);
    // Per-session state of features (their handlers are the server's, shared).
    for (const feature of core.features) feature.bind?.(this);
  }

  get core(): ServerCore {
    return this.#core;
  }

  /** An opaque object of this session's own, made when first asked for (see `SessionView.connection`). */
  get connection(): object {
    return (this.#connection ??= Object.freeze({}));
  }

  /** The HTTP session id of a stateful HTTP connection; undefined elsewhere. */
  get sessionId(): string | undefined {
    return this.peer.transport?.sessionId;
  }

  /** Who this connection's requests come from (undefined: anonymous), as its transport authenticated it. */
  get principal(): Principal | undefined {
    return this.#principal;
  }

  /**
   * Sets who the following requests come from. An HTTP transport calls it with each request's verified
   * principal (same subject, fresher scopes); a stdio server with the credentials of its environment.
   */
  authenticate(principal: Principal | undefined): void {
    if (principal === this.#principal) return;
    this.#principal = principal;
    this.#handshakeScope = undefined;
  }

  /** The negotiated handshake-era revision, once `initialize` has been answered. */
  get protocolVersion(): string | undefined {
    return this.#profile?.version;
  }

  /** The handshake is done (list_changed and the like may be sent). */
  get ready(): boolean {
    return this.#phase === 'ready' || this.#phase === 'initialized';
  }

  get client(): ClientView {
    return {
      protocolVersion: this.#profile?.version ?? '',
      info: this.#clientInfo,
      capabilities: this.#clientCapabilities,
    };
  }

  /**
   * Skips the handshake: the session speaks `version` as if `initialize` had been answered. For stateless
   * HTTP, where every request arrives on a fresh session and the version comes from a header.
   */
  assumeInitialized(version: HandshakeRevision, capabilities: ClientCapabilities = {}): void {
    this.#profile = profileFor(version, this.#core.options.resultShapes);
    this.#clientCapabilities = capabilities;
    this.#handshakeScope = undefined;
    this.#phase = 'ready';
  }

  /** The level `logging/setLevel` asked for (handshake era), if any. */
  get logLevel(): LoggingLevel | undefined {
    return this.#logLevel;
  }

  /**
   * @internal Increases whenever what a session record holds changes after the handshake (log level,
   * resource subscriptions): a transport that shares sessions across processes writes the record again.
   */
  get stateVersion(): number {
    return this.#stateVersion;
  }

  /** @internal See `stateVersion`. */
  stateChanged(): void {
    this.#stateVersion += 1;
  }

  /**
   * @internal Takes up a session another process negotiated (its record in a shared session store): the
   * revision, the client's info and capabilities and the log level, as if this connection had served the
   * handshake.
   */
  resume(state: {
    version: HandshakeRevision;
    clientInfo?: Implementation | undefined;
    clientCapabilities?: ClientCapabilities | undefined;
    logLevel?: LoggingLevel | undefined;
  }): void {
    this.assumeInitialized(state.version, internCapabilities(state.clientCapabilities ?? {}));
    this.#clientInfo = state.clientInfo && internClientInfo(state.clientInfo);
    this.#logLevel = state.logLevel;
  }

  connect(transport: Transport): Promise<void> {
    return this.peer.connect(transport);
  }

  /**
   * Closes the connection. With `graceMs`, first takes no new requests and lets those running finish
   * (at most `graceMs`; what still runs then is cancelled and answered with -32603).
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    if (options.graceMs) await this.peer.drain(options.graceMs);
    await this.peer.close();
  }

  /** Takes no new requests and waits for those running to finish, at most `graceMs` (see `close`). */
  drain(graceMs: number): Promise<void> {
    return this.peer.drain(graceMs);
  }

  /** Pings the client (handshake era: the stateless era has no ping, and its clients refuse one with -32601). */
  async ping(options?: RequestOptions): Promise<void> {
    await this.peer.request('ping', undefined, options);
  }

  /** Lists the client's roots outside any request (see `ServerConnection.listRoots`). */
  listRoots(options?: RequestOptions): Promise<ListRootsResult> {
    if (this.#phase === 'new' || this.#clientCapabilities.roots === undefined)
      return Promise.reject(
        new ServerError(
          LocalErrorCode.CapabilityNotSupported,
          this.#phase === 'new'
            ? 'The client has not initialized, so roots/list cannot be sent'
            : 'The client did not declare the roots capability, so roots/list cannot be sent',
        ),
      );
    // Checked before it is typed: `checkedAnswer` refuses an answer that is no list of roots.
    const answer = this.peer.request('roots/list', undefined, options) as Promise<unknown>;
    return checkedAnswer('roots/list', answer as Promise<ListRootsResult>);
  }

  /**
   * @internal Serves a request with an entry of the server's table. The era is decided here, once: a
   * request whose `_meta` carries a revision (or for a method of the stateless era only) is served
   * statelessly, from what it says; any other in the session's handshake-era scope.
   */
  serve(entry: HandlerEntry, params: JsonObject, ctx: RequestContext): Promise<object> | object {
    if (!entry.handshake || hasStatelessMeta(params)) return this.#serveStateless(entry, params, ctx);
    const scope = this.#handshakeScopeOf(ctx.method);
    return this.#handle(entry, { params, scope, ctx, session: this });
  }

  /** Runs a request's handler, inside the request middleware of its method when it has any. */
  #handle(entry: HandlerEntry, request: HandlerRequest): Promise<object> | object {
    const requests = this.#core.requests;
    const { params, ctx, scope } = request;
    const chain = requests.of(ctx.method);
    // Without request middleware for its method (the common case): the handler's own answer, with no
    // async wrapper around it (each costs microtask hops).
    if (chain.length === 0) return entry.handler(request);
    return requests.run(chain, this.#requestInfo(params, ctx, scope), () => entry.handler(request));
  }

  /**
   * A stateless-era request: its scope from its own `_meta` (-32022 for a revision not served, -32602 for
   * a field missing), -32601 for a method of the handshake era only, and the result finished with
   * `resultType`, `serverInfo` and (for cacheable results) the cache hint.
   */
  #serveStateless(entry: HandlerEntry, params: JsonObject, ctx: RequestContext): Promise<object> | object {
    const scope = this.#statelessScope(params);
    if (!entry.stateless) {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: ${ctx.method} does not exist in protocol version ${scope.profile.version}`,
      );
    }
    const pending = this.#handle(entry, { params, scope, ctx, session: this });
    // Not async: a result is finished as it comes (a promise's when it settles).
    const core = this.#core;
    const cache = entry.cacheable ? core.cache : undefined;
    const finish = (result: object) => core.finished.finish(scope.profile, result, cache);
    return pending instanceof Promise ? pending.then(finish) : finish(pending);
  }

  /** What the request middleware see of a request. */
  #requestInfo(params: JsonObject, ctx: RequestContext, scope: RequestScope): ServerRequest {
    // A class, not a literal: an object literal with an accessor (`signal`) is slow to create.
    return new ChainRequest(
      ctx,
      params,
      scope.principal,
      this.peer.transport?.sessionId,
      scope.era,
      scope.profile.version,
    );
  }

  /** A handshake-era request's scope: -32600 before `initialize`. */
  #handshakeScopeOf(method: string): HandshakeScope {
    // The same for every request of the session until initialize, assumeInitialized, setLevel or
    // authenticate change it.
    this.#handshakeScope ??= {
      era: 'handshake',
      profile: this.#profile ?? this.#beforeInitialize(method),
      client: this.client,
      logLevel: this.#logLevel,
      principal: this.#principal,
      host: undefined,
    };
    return this.#handshakeScope;
  }

  /** `logging/setLevel` (handshake era): messages below `level` are not sent on this session. */
  setLogLevel(level: LoggingLevel): void {
    this.#logLevel = level;
    this.#handshakeScope = undefined;
    this.#stateVersion += 1;
  }

  /** @internal `initialize` was answered (or skipped). */
  get initialized(): boolean {
    return this.#phase !== 'new';
  }

  /** @internal Records what `initialize` settled (see `handshake.ts`). */
  begin(profile: RevisionProfile, info: Implementation | undefined, capabilities: ClientCapabilities): void {
    this.#profile = profile;
    this.#clientInfo = info;
    this.#clientCapabilities = capabilities;
    this.#handshakeScope = undefined;
    this.#phase = 'initialized';
  }

  /** @internal `notifications/initialized` arrived. */
  confirm(): void {
    if (this.#phase !== 'initialized') return;
    this.#phase = 'ready';
    this.oninitialized?.();
  }

  #statelessScope(params: JsonObject): StatelessScope {
    const core = this.#core;
    return statelessScope(
      params,
      core.versions,
      this.#principal,
      core.options.resultShapes,
      core.requestStateCodec,
    );
  }

  #beforeInitialize(method: string): never {
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `Invalid request: ${echoedName(method)} before initialize; the client must initialize first`,
    );
  }
}
