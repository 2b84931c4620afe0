/**
 * One connection to a client: the handshake, the negotiated revision, the client's capabilities and
 * log level, and the request handlers bound to the server's shared registry.
 * @module
 */
import { Peer, type RequestOptions } from '../protocol/engine/peer.js';
import { ErrorCode, ProtocolError } from '../protocol/errors.js';
import { isJsonObject, type JsonObject, type JsonRpcRequest, type RequestId } from '../protocol/jsonrpc.js';
import {
  isLegacyRevision,
  negotiateVersion,
  profileFor,
  type LegacyRevision,
  type RevisionProfile,
} from '../protocol/revisions/index.js';
import type { Transport } from '../protocol/transport.js';
import {
  isLoggingLevel,
  loggingRank,
  type ClientCapabilities,
  type Implementation,
  type InitializeResult,
  type LoggingLevel,
  type ProgressParams,
} from '../protocol/types/lifecycle.js';
import { callTool, parseCallParams } from './call-tool.js';
import type { ServerCore } from './server-core.js';
import { createToolContext, type ClientView, type ContextHost } from './tool-context.js';

type Phase = 'new' | 'initialized' | 'ready' | 'closed';

const BEFORE_INIT = new Set(['initialize', 'ping']);

export class ServerSession implements ContextHost {
  readonly peer: Peer;
  readonly #core: ServerCore;
  #phase: Phase = 'new';
  #profile: RevisionProfile | undefined;
  #clientInfo: Implementation | undefined;
  #clientCapabilities: ClientCapabilities = {};
  #logLevel: LoggingLevel | undefined;

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

  /** The negotiated revision, once `initialize` has been answered. */
  get protocolVersion(): string | undefined {
    return this.#profile?.version;
  }

  /** The negotiated revision's profile (shaping), or -32600 before initialize. */
  get profile(): RevisionProfile {
    return this.#requireProfile();
  }

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
    this.#phase = 'ready';
  }

  connect(transport: Transport): Promise<void> {
    return this.peer.connect(transport);
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  /** Pings the client. */
  async ping(options?: RequestOptions): Promise<void> {
    await this.peer.request('ping', undefined, options);
  }

  // ContextHost
  canElicit(): boolean {
    return this.#profile?.features.elicitation ?? false;
  }

  request(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    return this.peer.request(method, params, options);
  }

  notify(method: string, params: JsonObject, relatedRequestId: RequestId): Promise<void> {
    return this.peer.notify(method, params, { relatedRequestId });
  }

  sendProgress(params: ProgressParams, relatedRequestId: RequestId): Promise<void> {
    const shaped = this.#profile ? this.#profile.shapeProgress(params) : params;
    return this.notify('notifications/progress', shaped as unknown as JsonObject, relatedRequestId);
  }

  log(
    level: LoggingLevel,
    data: unknown,
    logger: string | undefined,
    relatedRequestId: RequestId,
  ): Promise<void> {
    if (this.#logLevel !== undefined && loggingRank(level) < loggingRank(this.#logLevel))
      return Promise.resolve();
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.notify('notifications/message', params, relatedRequestId);
  }

  closeStream(relatedRequestId: RequestId): void {
    this.peer.transport?.closeStream?.(relatedRequestId);
  }

  #gate(message: JsonRpcRequest): void {
    if (this.#phase === 'new' && !BEFORE_INIT.has(message.method)) {
      throw new ProtocolError(
        ErrorCode.InvalidRequest,
        `Invalid request: ${message.method} before initialize; the client must initialize first`,
      );
    }
  }

  #bind(): void {
    const peer = this.peer;
    const core = this.#core;
    peer.setRequestHandler('ping', () => ({}));
    peer.setRequestHandler('initialize', (params) => this.#initialize(params));
    peer.setNotificationHandler('notifications/initialized', () => {
      if (this.#phase === 'initialized') this.#phase = 'ready';
    });
    peer.setNotificationHandler('notifications/roots/list_changed', () =>
      core.options.onRootsListChanged?.(this),
    );
    peer.setRequestHandler('logging/setLevel', (params) => {
      if (!isLoggingLevel(params.level)) {
        throw new ProtocolError(
          ErrorCode.InvalidParams,
          `Invalid params: unknown logging level ${String(params.level)}`,
        );
      }
      this.#logLevel = params.level;
      return {};
    });
    peer.setRequestHandler('tools/list', (params) => {
      const cursor = params.cursor;
      if (cursor !== undefined && typeof cursor !== 'string') {
        throw new ProtocolError(ErrorCode.InvalidParams, 'Invalid params: cursor must be a string');
      }
      const page = core.toolPages.page(core.tools.list(), core.tools.version, this.#requireProfile(), cursor);
      return page as unknown as JsonObject;
    });
    peer.setRequestHandler('tools/call', async (params, ctx) => {
      const { name, args } = parseCallParams(params);
      const tool = core.tools.get(name);
      if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      const signal = AbortSignal.any([ctx.signal, core.shutdownSignal]);
      const context = createToolContext(this, ctx.id, signal, ctx.meta);
      const result = await callTool(tool, args, context, { onToolBug: core.options.onToolBug });
      return this.#requireProfile().shapeCallResult(result) as unknown as JsonObject;
    });
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
    const version = negotiateVersion(requested, this.#core.versions);
    if (!isLegacyRevision(version)) throw new ProtocolError(ErrorCode.InternalError, 'No supported revision');
    const profile = profileFor(version);
    this.#profile = profile;
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
