/**
 * The POSTs of a Streamable HTTP handler: a client's messages, read whole and checked, then served by
 * the era they belong to. A stateless-era request is served on its own (`statelessEraPost`). A
 * handshake-era POST carries one message, or a batch where its revision has them (2025-03-26): it goes to
 * the session `Mcp-Session-Id` names, to a new session for `initialize`, or, on a stateless server, to a
 * session of its own (a lone request answered with JSON is served like a stateless-era exchange).
 * @module
 */
import { isReply, revisionOf, watchClient, type HttpRequestLike, type Reply } from './http-exchange.js';
import { ErrorCode } from '../../protocol/errors.js';
import { DEFAULT_MAX_BATCH_SIZE } from '../../protocol/engine/peer-options.js';
import { classify, type JsonRpcRequest, type RequestId } from '../../protocol/jsonrpc.js';
import {
  HANDSHAKE_REVISIONS,
  isHandshakeRevision,
  isRevision,
  profileFor,
  type HandshakeRevision,
} from '../../protocol/revisions/index.js';
import { hasStatelessMeta } from '../../protocol/types/stateless.js';
import type { Principal } from '../../server/index.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { HttpAuth } from './auth/http-auth.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { jsonRpcErrorResponse, shuttingDown } from './http-status.js';
import type { LiveSession } from './live-session-map.js';
import type { LiveSessions } from './live-sessions.js';
import { acceptable } from './media-type.js';
import {
  handshakeVersions,
  statelessServerRevision,
  unsupportedVersionHeader,
} from './protocol-version-header.js';
import { readJsonBody } from './read-body.js';
import { statelessEraPost } from './stateless-era-post.js';
import type { StatelessExchanges } from './stateless-exchanges.js';

/** A 400 refusing a POST; `revision` shapes the error's `id` (see `jsonRpcErrorResponse`). */
const bad = (message: string, revision: string | null | undefined) =>
  jsonRpcErrorResponse(400, ErrorCode.InvalidRequest, message, {}, revision);

/** Whether `revision` has JSON-RPC batches (2025-03-26 only: 2025-06-18 removed them, 2024-11-05 had none). */
const hasBatches = (revision: string | undefined) =>
  isRevision(revision) && profileFor(revision).features.batching;

/** The server speaks no handshake-era revision: no sessions, no GET or DELETE. */
export function statelessOnly(server: ServerRuntime): boolean {
  return !server.versions.some(isHandshakeRevision);
}

export class StreamableHttpPosts {
  readonly #server: ServerRuntime;
  readonly #options: ResolvedHttpOptions;
  readonly #auth: HttpAuth | undefined;
  readonly #sessions: LiveSessions;
  /** Requests served on a session of their own (stateless-era ones, and a stateless server's). */
  readonly #exchanges: StatelessExchanges;
  /** The handler's `close` was called: no new session or exchange starts. */
  #closing = false;

  constructor(
    server: ServerRuntime,
    options: ResolvedHttpOptions,
    auth: HttpAuth | undefined,
    sessions: LiveSessions,
    exchanges: StatelessExchanges,
  ) {
    this.#server = server;
    this.#options = options;
    this.#auth = auth;
    this.#sessions = sessions;
    this.#exchanges = exchanges;
  }

  /** The handler is closing: no new session starts, nor a stateless server's exchange (503). */
  refuseNew(): void {
    this.#closing = true;
  }

  /**
   * A POST. Not async: a small JSON body is read whole and a live session found at once, so a
   * handshake-era request keeps no frame across an `await` on its way to the session's transport.
   */
  post(request: HttpRequestLike, principal: Principal | undefined): Promise<Reply> | Reply {
    const accept = acceptable(request.headers.get('accept'));
    if (!accept.json || !accept.eventStream) {
      return jsonRpcErrorResponse(
        406,
        ErrorCode.InvalidRequest,
        'Not Acceptable: Accept must list application/json and text/event-stream',
        {},
        revisionOf(request),
      );
    }
    const read = readJsonBody(request, this.#options.maxBodyBytes);
    if (read instanceof Promise) return read.then((whole) => this.#posted(request, principal, whole));
    return this.#posted(request, principal, read);
  }

  #posted(
    request: HttpRequestLike,
    principal: Principal | undefined,
    read: { body: unknown } | Reply,
  ): Promise<Reply> | Reply {
    if (isReply(read)) return read;
    const body = read.body;
    const batch = Array.isArray(body);
    const stepUp = batch ? undefined : this.#auth?.stepUp(this.#server, request, body, principal);
    if (stepUp) return stepUp;
    const version = request.headers.get('mcp-protocol-version');
    if (!batch) {
      const stateless = statelessEraPost(request, body, {
        server: this.#server,
        statelessOnly: statelessOnly(this.#server),
        serve: (message) => this.#exchanges.serve(request, message, principal),
      });
      if (stateless) return stateless;
    }
    const messages: unknown[] = batch ? (body as unknown[]) : [body];
    if (messages.length === 0) return bad('Invalid request: an empty batch', version);
    const maxBatch = this.#server.options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    if (messages.length > maxBatch) {
      return bad(
        `Invalid request: a batch of ${messages.length} messages is over the limit of ${maxBatch}`,
        version,
      );
    }
    const requestIds: RequestId[] = [];
    let initialize = false;
    for (const message of messages) {
      const item = classify(message);
      if (item.kind === 'invalid') return bad(`Invalid request: ${item.reason}`, version);
      if (item.kind === 'request') {
        if (hasStatelessMeta(item.message.params))
          return bad('Invalid request: the stateless era (2026-07-28) has no JSON-RPC batches', version);
        requestIds.push(item.message.id);
        if (item.message.method === 'initialize') initialize = true;
      }
    }
    if (initialize && messages.length > 1)
      return bad('Invalid request: initialize must be sent alone', version);
    // An initialize's body negotiates its revision: a header there only has to name a handshake-era one.
    const supported = handshakeVersions(this.#server.versions);
    const refused = unsupportedVersionHeader(request, initialize ? HANDSHAKE_REVISIONS : supported);
    if (refused) return refused;

    if (this.#closing && (initialize || this.#options.stateless)) return shuttingDown(version);
    if (this.#options.stateless) {
      const revision = initialize ? undefined : statelessServerRevision(request, supported);
      if (isReply(revision)) return revision;
      if (batch && !hasBatches(revision))
        return bad(`Invalid request: ${revision ?? 'initialize'} has no JSON-RPC batches`, revision);
      // A lone request answered with JSON needs no streams: served like a stateless-era exchange.
      if (revision && !batch && requestIds.length === 1 && this.#options.responseMode === 'json') {
        return this.#exchanges.serve(request, body as JsonRpcRequest, principal, revision);
      }
      return this.#perRequestSession(request, principal, { messages, requestIds, batch, revision });
    }

    if (initialize) return this.#initialize(request, principal, messages, requestIds, batch);
    const found = this.#sessions.find(request, principal);
    const post = (live: LiveSession | Reply): Promise<Reply> | Reply => {
      if (isReply(live)) return live;
      const revision = live.session.protocolVersion;
      if (batch && !hasBatches(revision))
        return bad(`Invalid request: ${revision ?? 'this session'} has no JSON-RPC batches`, revision);
      return live.transport.post(messages, requestIds, batch, watchClient(request));
    };
    return found instanceof Promise ? found.then(post) : post(found);
  }

  /**
   * Stateless handshake era, streams needed (SSE, a batch, initialize): a session for this POST alone, at
   * `revision` (undefined for an initialize, which negotiates one).
   */
  async #perRequestSession(
    request: HttpRequestLike,
    principal: Principal | undefined,
    post: {
      messages: unknown[];
      requestIds: RequestId[];
      batch: boolean;
      revision: HandshakeRevision | undefined;
    },
  ): Promise<Reply> {
    const { session, transport } = await this.#sessions.connect(undefined, principal);
    if (post.revision) session.assumeInitialized(post.revision);
    // The per-request session ends once its last response is out.
    transport.onidle = () => void session.close();
    const response = await transport.post(post.messages, post.requestIds, post.batch, watchClient(request));
    if (transport.pendingRequests === 0) void session.close();
    return response;
  }

  async #initialize(
    request: HttpRequestLike,
    principal: Principal | undefined,
    messages: unknown[],
    requestIds: RequestId[],
    batch: boolean,
  ): Promise<Reply> {
    const client = this.#options.clientAddress(request);
    const opened = await this.#sessions.open(principal, client, revisionOf(request));
    if (isReply(opened)) return opened;
    return opened.transport.post(messages, requestIds, batch, watchClient(request));
  }
}
