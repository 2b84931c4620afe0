/**
 * The HTTP+SSE transport of 2024-11-05, beside the Streamable HTTP endpoint so old clients still connect:
 * `GET /sse` opens the stream and names the POST endpoint in an `endpoint` event; `POST
 * /messages?sessionId=…` carries client messages (202), and every server message is an SSE `message`.
 * With a session bus (the handler's `redis` option), a POST for a session whose stream another process
 * holds is forwarded there (see `SharedLegacySse`).
 * @module
 */
import { JsonReply, SseReply, isReply, type HttpRequestLike, type Reply } from './http-exchange.js';
import { ErrorCode, LocalErrorCode } from '../../protocol/errors.js';
import { stringifyJson } from '../../protocol/json-text.js';
import { classify, type JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Transport } from '../../protocol/transport.js';
import type { Principal } from '../../server/index.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { ServerSession } from '../../server/server-session.js';
import type { SessionBus } from '../../stores/session-bus.js';
import { QueuedOutput } from '../queued-output.js';
import { TransportError } from '../transport-error.js';
import type { HttpAuth } from './auth/http-auth.js';
import type { ResolvedHttpOptions } from './http-options.js';
import type { ClientSlots } from './client-slots.js';
import { jsonRpcErrorResponse, shuttingDown, tooManyForClient, tooMuchUnread } from './http-status.js';
import { readJsonBody } from './read-body.js';
import { SharedLegacySse, type Served } from './shared-legacy-sse.js';
import { SSE_HEADERS } from './sse-wire.js';
import { pacedByReader } from './sse-pacing.js';
import { SseSink } from './sse-sink.js';

class LegacySseTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly sessionId: string;
  readonly sink: SseSink;
  /** What the stream holds unread: at its limits the session's requests are refused, at twice them it ends. */
  readonly queue: QueuedOutput;
  #closed = false;

  constructor(sessionId: string, options: ResolvedHttpOptions) {
    this.sessionId = sessionId;
    this.queue = new QueuedOutput(options);
    this.sink = new SseSink(options.keepAliveMs, this.queue);
    this.sink.oncancel = () => void this.close();
    // The one stream of the session holds twice the limits: the session ends, and its output goes.
    this.sink.onoverflow = () => {
      this.sink.abort();
      void this.close();
    };
  }

  async start(): Promise<void> {}

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#closed) throw new TransportError(LocalErrorCode.ConnectionClosed, 'The SSE stream is closed');
    this.sink.event({ event: 'message', data: stringifyJson(message) });
    // A tool's progress and log messages wait while the client leaves the stream unread.
    if (!Array.isArray(message) && pacedByReader(message)) await this.sink.room();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.sink.close();
    this.onclose?.();
  }
}

export class LegacySseEndpoints {
  readonly #server: ServerRuntime;
  readonly #paths: { ssePath: string; messagesPath: string };
  readonly #options: ResolvedHttpOptions;
  readonly #sessions = new Map<
    string,
    { session: ServerSession; transport: LegacySseTransport; owner: string | undefined }
  >();

  readonly #auth: HttpAuth | undefined;
  readonly #slots: ClientSlots;
  /** Sessions shared with other processes (a session bus). */
  readonly #shared: SharedLegacySse | undefined;
  #closing = false;

  constructor(
    server: ServerRuntime,
    paths: { ssePath: string; messagesPath: string },
    options: ResolvedHttpOptions,
    auth: HttpAuth | undefined,
    slots: ClientSlots,
    bus?: SessionBus,
  ) {
    this.#server = server;
    this.#paths = paths;
    this.#options = options;
    this.#auth = auth;
    this.#slots = slots;
    if (bus) {
      this.#shared = new SharedLegacySse(bus, server, {
        sessions: () =>
          [...this.#sessions.values()].map(({ session, transport }) => ({
            session,
            send: (message) => transport.send(message),
          })),
        accept: (id, body, principal) => this.#accept(id, body, principal),
        onError: (error) => server.options.onError?.(error),
      });
    }
  }

  /** The path is one of the legacy endpoints. */
  owns(path: string): boolean {
    return path === this.#paths.ssePath || path === this.#paths.messagesPath;
  }

  /**
   * Serves a request for a legacy path (see `owns`) from `principal` (undefined: anonymous); the stream's
   * session is bound to the principal's subject.
   */
  async handle(request: HttpRequestLike, path: string, principal: Principal | undefined): Promise<Reply> {
    if (path === this.#paths.ssePath) {
      if (request.method !== 'GET')
        return jsonRpcErrorResponse(405, ErrorCode.InvalidRequest, 'Method not allowed', { allow: 'GET' });
      return this.#open(principal, this.#options.clientAddress(request));
    }
    if (request.method !== 'POST')
      return jsonRpcErrorResponse(405, ErrorCode.InvalidRequest, 'Method not allowed', { allow: 'POST' });
    return this.#message(request, principal);
  }

  /** The server is closing: no new stream is opened (503). */
  refuseNew(): void {
    this.#closing = true;
  }

  /** Whether a transport is one of this endpoint's session transports. */
  hasTransport(transport: object): boolean {
    return transport instanceof LegacySseTransport && this.#sessions.has(transport.sessionId);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map(({ session }) => session.close()));
  }

  async #open(principal: Principal | undefined, client: string | undefined): Promise<Reply> {
    if (this.#closing) return shuttingDown();
    if (this.#sessions.size >= this.#options.maxSessions) {
      return jsonRpcErrorResponse(503, ErrorCode.InternalError, 'Service Unavailable: too many sessions', {
        'retry-after': '60',
      });
    }
    const slot = this.#slots.take(client);
    if (slot === false)
      return tooManyForClient(
        this.#options.maxSessionsPerClient,
        this.#options.handshakeTimeoutMs,
        undefined,
        null,
      );
    const id = crypto.randomUUID();
    const transport = new LegacySseTransport(id, this.#options);
    let session: ServerSession;
    try {
      session = await this.#server.connect(transport, principal ? { principal } : {});
    } catch (error) {
      this.#slots.release(slot);
      throw error;
    }
    this.#sessions.set(id, { session, transport, owner: principal?.subject });
    session.onclose = () => {
      this.#sessions.delete(id);
      this.#slots.release(slot);
      this.#shared?.released(id);
    };
    // Shared: POSTs that reach other processes come here, from before the client learns where to post.
    await this.#shared?.held(id).catch(async (error: unknown) => {
      await session.close();
      throw error;
    });
    transport.sink.event({ event: 'endpoint', data: `${this.#paths.messagesPath}?sessionId=${id}` });
    return new SseReply(transport.sink, SSE_HEADERS);
  }

  async #message(request: HttpRequestLike, principal: Principal | undefined): Promise<Reply> {
    const id = new URL(request.url).searchParams.get('sessionId');
    const live = id ? this.#sessions.get(id) : undefined;
    // A session whose stream another process may hold: the message goes there.
    if (id && !live && this.#shared) return this.#forward(request, id, principal);
    // Another subject's session is no session for this caller.
    if (live && live.owner !== principal?.subject) this.#auth?.foreignSession(request, principal);
    if (!id || !live || live.owner !== principal?.subject) return notFound();
    const read = await readJsonBody(request, this.#options.maxBodyBytes);
    if (isReply(read)) return read;
    return this.#answer(request, principal, this.#accept(id, read.body, principal));
  }

  /** A POST for a session not held here, forwarded to the process holding its stream. */
  async #forward(request: HttpRequestLike, id: string, principal: Principal | undefined): Promise<Reply> {
    const read = await readJsonBody(request, this.#options.maxBodyBytes);
    if (isReply(read)) return read;
    return this.#answer(request, principal, await this.#shared!.forward(id, read.body, principal));
  }

  #answer(request: HttpRequestLike, principal: Principal | undefined, served: Served): Reply {
    if (served === 'foreign') this.#auth?.foreignSession(request, principal);
    return typeof served === 'string' ? notFound() : served;
  }

  /**
   * Serves a message posted to a session held here (by this process's client, or forwarded by another
   * process): for its owner only.
   */
  #accept(id: string, body: unknown, principal: Principal | undefined): Served {
    const live = this.#sessions.get(id);
    if (!live) return 'unknown';
    if (live.owner !== principal?.subject) return 'foreign';
    live.session.authenticate(principal);
    // The client leaves too much of its stream unread: no new work until it reads (answers and
    // cancellations still go in).
    if (live.transport.queue.full && carriesRequest(body))
      return tooMuchUnread(live.transport.queue, {}, live.session.protocolVersion);
    live.transport.onmessage?.(body);
    return new JsonReply(202, { 'content-type': 'text/plain; charset=utf-8' }, 'Accepted');
  }
}

/** 404 for a POST naming no session of its caller's. */
function notFound(): Reply {
  return jsonRpcErrorResponse(404, ErrorCode.InvalidRequest, 'Not Found: unknown sessionId');
}

/** Whether a POSTed body holds a request (alone or in a batch). */
function carriesRequest(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some((message) => classify(message).kind === 'request');
}
