/**
 * One connection to a client. It serves both eras: `initialize` starts the handshake era for the
 * connection (revision, client capabilities and log level kept here); a request whose `_meta` carries a
 * protocol version is served statelessly, from what that request says (2026-07-28). The handlers are the
 * server's (`HandlerTable`, shared by every session); the session works out each request's scope and
 * finishes its result for the era.
 * @module
 */
import {
  Peer,
  type RequestContext,
  type RequestHandler,
  type RequestOptions,
} from '../protocol/engine/peer.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { isJsonObject, type JsonObject, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import { profileFor, type HandshakeRevision, type RevisionProfile } from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import type {
  ClientCapabilities,
  Implementation,
  InitializeResult,
  LoggingLevel,
} from '../protocol/types/lifecycle.js';
import { hasStatelessMeta } from '../protocol/types/stateless.js';
import type { Principal } from './auth/principal.js';
import type { HandlerEntry } from './handler-table.js';
import { statelessScope, type RequestScope } from './request-scope.js';
import type { ServerCore } from './server-core.js';
import { initializeVersion } from './session-handlers.js';
import type { ClientView } from './tool-context.js';

export { installSessionHandlers } from './session-handlers.js';

type Phase = 'new' | 'initialized' | 'ready' | 'closed';

/** How long a closing connection's running requests may take, by default (ms). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** Methods a handshake-era client may send before `initialize`. */
const BEFORE_INIT = new Set(['initialize', 'ping']);

export class ServerSession {
  readonly peer: Peer;
  readonly #core: ServerCore;
  #phase: Phase = 'new';
  #profile: RevisionProfile | undefined;
  #clientInfo: Implementation | undefined;
  #clientCapabilities: ClientCapabilities = {};
  #logLevel: LoggingLevel | undefined;
  #handshakeScope: RequestScope | undefined;
  #principal: Principal | undefined;
  #stateVersion = 0;

  onclose?: () => void;

  /** @param closed internal: the server's own bookkeeping, called before `onclose` */
  constructor(core: ServerCore, closed?: (session: ServerSession) => void) {
    this.#core = core;
    this.peer = new Peer({
      defaultTimeout: core.options.requestTimeout,
      acceptBatch: () => this.#profile?.features.batching ?? false,
      unknownErrorId: () => (this.#profile && !this.#profile.features.optionalErrorId ? null : undefined),
      gate: (message) => this.#gate(message),
      fallback: this.#dispatch,
      maxBatchSize: core.options.maxBatchSize,
      maxRequestsInFlight: core.options.maxRequestsInFlight,
      maxBatchAnswerBytes: core.options.maxBatchAnswerBytes,
      endGraceMs: core.options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    });
    this.peer.onclose = () => {
      this.#phase = 'closed';
      closed?.(this);
      this.onclose?.();
    };
    this.peer.onerror = (error) => core.options.onError?.(error);
    this.#bind();
  }

  get core(): ServerCore {
    return this.#core;
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

  /** The negotiated revision's profile (shaping), or -32600 before initialize. */
  get profile(): RevisionProfile {
    return this.#requireProfile();
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
    this.assumeInitialized(state.version, state.clientCapabilities ?? {});
    this.#clientInfo = state.clientInfo;
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

  /** Pings the client (handshake era). */
  async ping(options?: RequestOptions): Promise<void> {
    await this.peer.request('ping', undefined, options);
  }

  /**
   * Serves a request with a handler of the server's table (the engine's fallback for every method): its
   * scope worked out, -32601 for a method missing from the request's era; in the stateless era the result
   * gets `resultType`, `serverInfo` and (for cacheable results) the cache hint.
   */
  readonly #dispatch: RequestHandler = (params, ctx) => {
    const handshake = this.#handshake(ctx.method, params);
    if (handshake) return handshake;
    const entry = this.#core.handlers.get(ctx.method);
    if (!entry) throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${ctx.method}`);
    return this.#run(entry, params, ctx);
  };

  #run(entry: HandlerEntry, params: JsonObject, ctx: RequestContext): Promise<JsonObject> | JsonObject {
    const method = ctx.method;
    // A method of the stateless era only: its _meta is required (-32602 when missing).
    const scope = entry.handshake
      ? this.scope(params)
      : statelessScope(params, this.#core.versions, this.#principal, this.#core.options.resultShapes);
    if (scope.era === 'handshake' ? !entry.handshake : !entry.stateless) {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} does not exist in protocol version ${scope.profile.version}`,
      );
    }
    const requests = this.#core.requests;
    // The handshake era without request middleware (the common case): the handler's own answer, with
    // no async wrapper around it (each costs microtask hops).
    if (requests.empty && scope.era === 'handshake') return entry.handler(params, scope, ctx, this);
    const result = requests.empty
      ? entry.handler(params, scope, ctx, this)
      : requests.run(
          {
            method,
            params,
            requestId: ctx.id,
            principal: scope.principal,
            sessionId: this.peer.transport?.sessionId,
            era: scope.era,
            protocolVersion: scope.profile.version,
            get signal() {
              return ctx.signal;
            },
          },
          () => entry.handler(params, scope, ctx, this),
        );
    return this.#finish(entry, scope, result);
  }

  #finish(
    entry: HandlerEntry,
    scope: RequestScope,
    pending: Promise<JsonObject> | JsonObject,
  ): Promise<JsonObject> | JsonObject {
    if (scope.era === 'handshake') return pending;
    // Not async: a result is finished as it comes (a promise's when it settles).
    const finish = (result: JsonObject) =>
      this.#core.finished.finish(scope.profile, result, entry.cacheable ? this.#core.cache : undefined);
    return pending instanceof Promise ? pending.then(finish) : finish(pending);
  }

  /** @internal The scope a request is served in (throws the protocol error a malformed stateless request gets). */
  scope(params: JsonObject): RequestScope {
    if (hasStatelessMeta(params))
      return statelessScope(params, this.#core.versions, this.#principal, this.#core.options.resultShapes);
    // The same for every request of the session until initialize, assumeInitialized, setLevel or
    // authenticate change it.
    this.#handshakeScope ??= {
      era: 'handshake',
      profile: this.#requireProfile(),
      client: this.client,
      logLevel: this.#logLevel,
      principal: this.#principal,
      host: undefined,
    };
    return this.#handshakeScope;
  }

  #gate(message: JsonRpcRequest): void {
    if (this.#phase !== 'new' || BEFORE_INIT.has(message.method) || hasStatelessMeta(message.params)) return;
    if (message.method === 'server/discover') return; // answered with -32602: its _meta is missing
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `Invalid request: ${message.method} before initialize; the client must initialize first`,
    );
  }

  #bind(): void {
    const peer = this.peer;
    const core = this.#core;
    peer.setNotificationHandler('notifications/initialized', () => {
      if (this.#phase === 'initialized') this.#phase = 'ready';
    });
    peer.setNotificationHandler('notifications/roots/list_changed', () =>
      core.options.onRootsListChanged?.(this),
    );
    // Per-session state of features (their handlers are the server's, shared).
    for (const feature of core.features) feature.bind?.(this);
  }

  /** `ping` and `initialize`: the handshake's own methods, served before any scope exists. */
  #handshake(method: string, params: JsonObject): JsonObject | undefined {
    if (method !== 'ping' && method !== 'initialize') return undefined;
    if (hasStatelessMeta(params)) {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} does not exist in the stateless era`,
      );
    }
    return method === 'ping' ? {} : this.#initialize(params);
  }

  /** `logging/setLevel` (handshake era): messages below `level` are not sent on this session. */
  setLogLevel(level: LoggingLevel): void {
    this.#logLevel = level;
    this.#handshakeScope = undefined;
    this.#stateVersion += 1;
  }

  #requireProfile(): RevisionProfile {
    if (!this.#profile) throw new ProtocolError(ErrorCode.InvalidRequest, 'Invalid request: not initialized');
    return this.#profile;
  }

  #initialize(params: JsonObject): JsonObject {
    if (this.#phase !== 'new') {
      throw new ProtocolError(
        ErrorCode.InvalidRequest,
        'Invalid request: the session is already initialized',
      );
    }
    const version = initializeVersion(params, this.#core.versions);
    const profile = profileFor(version, this.#core.options.resultShapes);
    this.#profile = profile;
    this.#handshakeScope = undefined;
    this.#clientCapabilities = isJsonObject(params.capabilities)
      ? (params.capabilities as ClientCapabilities)
      : {};
    const info = params.clientInfo;
    if (isJsonObject(info) && typeof info.name === 'string')
      this.#clientInfo = info as unknown as Implementation;
    this.#phase = 'initialized';
    const result: InitializeResult = {
      protocolVersion: version,
      capabilities: profile.shapeServerCapabilities(this.#core.capabilities),
      serverInfo: profile.shapeImplementation(this.#core.info),
    };
    if (this.#core.options.instructions !== undefined) result.instructions = this.#core.options.instructions;
    return result as unknown as JsonObject;
  }
}
