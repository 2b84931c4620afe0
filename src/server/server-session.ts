/**
 * One connection to a client. It serves both eras: `initialize` starts the handshake era for the
 * connection (revision, client capabilities and log level kept here); a request whose `_meta` carries a
 * protocol version is served statelessly, from what that request says (2026-07-28). Every handler is
 * registered through `handle`, which works out the request's scope and finishes its result for the era.
 * @module
 */
import { Peer, type RequestContext, type RequestOptions } from '../protocol/engine/peer.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { isJsonObject, type JsonObject, type JsonRpcRequest } from '../protocol/jsonrpc.js';
import {
  isLegacyRevision,
  negotiateVersion,
  profileFor,
  type LegacyRevision,
  type ResultExtras,
  type RevisionProfile,
} from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import {
  isLoggingLevel,
  type ClientCapabilities,
  type Implementation,
  type InitializeResult,
  type LoggingLevel,
} from '../protocol/types/lifecycle.js';
import { isModernRequest } from '../protocol/types/modern.js';
import type { Principal } from './auth/principal.js';
import { modernScope, type RequestScope } from './request-scope.js';
import type { ServerCore } from './server-core.js';
import type { ClientView } from './tool-context.js';
import { bindTools } from './tools-handlers.js';

type Phase = 'new' | 'initialized' | 'ready' | 'closed';

export type ScopedHandler = (
  params: JsonObject,
  scope: RequestScope,
  ctx: RequestContext,
) => Promise<JsonObject> | JsonObject;

export interface HandleOptions {
  /** The eras the method exists in (default both). */
  eras?: ReadonlyArray<'legacy' | 'modern'>;
  /** The result may be cached: in the stateless era it gets the server's `ttlMs` and `cacheScope`. */
  cacheable?: boolean;
}

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
  #legacyScope: RequestScope | undefined;
  #principal: Principal | undefined;

  onclose?: () => void;

  /** @param closed internal: the server's own bookkeeping, called before `onclose` */
  constructor(core: ServerCore, closed?: (session: ServerSession) => void) {
    this.#core = core;
    this.peer = new Peer({
      defaultTimeout: core.options.requestTimeout,
      acceptBatch: () => this.#profile?.features.batching ?? false,
      unknownErrorId: () => (this.#profile && !this.#profile.features.optionalErrorId ? null : undefined),
      gate: (message) => this.#gate(message),
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
    this.#legacyScope = undefined;
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
  assumeInitialized(version: LegacyRevision, capabilities: ClientCapabilities = {}): void {
    this.#profile = profileFor(version);
    this.#clientCapabilities = capabilities;
    this.#legacyScope = undefined;
    this.#phase = 'ready';
  }

  connect(transport: Transport): Promise<void> {
    return this.peer.connect(transport);
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  /** Pings the client (handshake era). */
  async ping(options?: RequestOptions): Promise<void> {
    await this.peer.request('ping', undefined, options);
  }

  /**
   * Registers a request handler that receives the request's scope; in the stateless era its result gets
   * `resultType`, `serverInfo` and (for cacheable results) the cache hint. A method missing from the
   * request's era is -32601.
   */
  handle(method: string, handler: ScopedHandler, options: HandleOptions = {}): void {
    const eras = options.eras ?? ['legacy', 'modern'];
    this.peer.setRequestHandler(method, async (params, ctx) => {
      // A method of the stateless era only: its _meta is required (-32602 when missing).
      const scope = eras.includes('legacy')
        ? this.scope(params)
        : modernScope(params, this.#core.versions, this.#principal);
      if (!eras.includes(scope.era)) {
        throw new ProtocolError(
          ErrorCode.MethodNotFound,
          `Method not found: ${method} does not exist in protocol version ${scope.profile.version}`,
        );
      }
      const requests = this.#core.requests;
      const result = requests.empty
        ? await handler(params, scope, ctx)
        : await requests.run(
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
            () => handler(params, scope, ctx),
          );
      if (scope.era === 'legacy') return result;
      const extras: ResultExtras = { serverInfo: scope.profile.shapeImplementation(this.#core.info) };
      if (options.cacheable) extras.cache = this.#core.cache;
      return scope.profile.finishResult(result, extras);
    });
  }

  /** The scope a request is served in (throws the protocol error a malformed stateless request gets). */
  scope(params: JsonObject): RequestScope {
    if (isModernRequest(params)) return modernScope(params, this.#core.versions, this.#principal);
    // The same for every request of the session until initialize, assumeInitialized, setLevel or
    // authenticate change it.
    this.#legacyScope ??= {
      era: 'legacy',
      profile: this.#requireProfile(),
      client: this.client,
      logLevel: this.#logLevel,
      principal: this.#principal,
    };
    return this.#legacyScope;
  }

  #gate(message: JsonRpcRequest): void {
    if (this.#phase !== 'new' || BEFORE_INIT.has(message.method) || isModernRequest(message.params)) return;
    if (message.method === 'server/discover') return; // answered with -32602: its _meta is missing
    throw new ProtocolError(
      ErrorCode.InvalidRequest,
      `Invalid request: ${message.method} before initialize; the client must initialize first`,
    );
  }

  #bind(): void {
    const peer = this.peer;
    const core = this.#core;
    peer.setRequestHandler('ping', (params) => {
      if (!isModernRequest(params)) return {}; // allowed before initialize, so no scope
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        'Method not found: ping does not exist in the stateless era',
      );
    });
    peer.setRequestHandler('initialize', (params) => {
      if (isModernRequest(params)) {
        throw new ProtocolError(
          ErrorCode.MethodNotFound,
          'Method not found: initialize does not exist in the stateless era',
        );
      }
      return this.#initialize(params);
    });
    peer.setNotificationHandler('notifications/initialized', () => {
      if (this.#phase === 'initialized') this.#phase = 'ready';
    });
    peer.setNotificationHandler('notifications/roots/list_changed', () =>
      core.options.onRootsListChanged?.(this),
    );
    this.handle(
      'logging/setLevel',
      (params) => {
        if (!isLoggingLevel(params.level)) {
          throw new ProtocolError(
            ErrorCode.InvalidParams,
            `Invalid params: unknown logging level ${String(params.level)}`,
          );
        }
        this.#logLevel = params.level;
        this.#legacyScope = undefined;
        return {};
      },
      { eras: ['legacy'] },
    );
    this.handle(
      'server/discover',
      (_params, scope) => ({
        supportedVersions: [...core.versions],
        capabilities: scope.profile.shapeServerCapabilities(core.capabilities),
        ...(core.options.instructions === undefined ? {} : { instructions: core.options.instructions }),
      }),
      { eras: ['modern'], cacheable: true },
    );
    bindTools(this);
    for (const feature of core.features) feature.bind(this);
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
    const requested = params.protocolVersion;
    if (typeof requested !== 'string' || requested.length === 0) {
      throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: protocolVersion must be a string');
    }
    const legacy = this.#core.versions.filter(isLegacyRevision);
    if (legacy.length === 0) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        'Unsupported protocol version: this server speaks only the stateless era (no initialize)',
        { supported: [...this.#core.versions], requested },
      );
    }
    const version = negotiateVersion(requested, legacy);
    const profile = profileFor(version);
    this.#profile = profile;
    this.#legacyScope = undefined;
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
