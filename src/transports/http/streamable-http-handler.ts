/**
 * The Streamable HTTP transport, server side, as a web-standard handler: `handle(Request): Response`.
 * POST carries client messages, GET opens (or resumes) the server's stream, DELETE ends a session.
 * One toolwire `Server` serves every session from its shared registry; each session has its own small
 * protocol state and transport.
 * @module
 */
import { ErrorCode } from '../../protocol/errors.js';
import { classify, type RequestId } from '../../protocol/jsonrpc.js';
import { LEGACY_REVISIONS, isLegacyRevision } from '../../protocol/revisions/index.js';
import type { Server, ServerSession } from '../../server/index.js';
import { MemoryEventStore } from '../../stores/event-store.js';
import { MemorySessionStore, type SessionStore } from '../../stores/session-store.js';
import type { ResolvedHttpOptions, StreamableHttpOptions } from './http-options.js';
import { HttpSessionTransport } from './http-session-transport.js';
import { jsonRpcErrorResponse } from './http-status.js';
import { LegacySseEndpoints } from './legacy-sse-endpoints.js';
import { OriginGuard } from './origin-guard.js';
import { BodyTooLargeError, readBody } from './read-body.js';

interface LiveSession {
  session: ServerSession;
  transport: HttpSessionTransport;
}

const bad = (message: string, code: number = ErrorCode.InvalidRequest) =>
  jsonRpcErrorResponse(400, code, message);

export class StreamableHttpHandler {
  readonly #server: Server;
  readonly #options: ResolvedHttpOptions;
  readonly #guard: OriginGuard;
  readonly #store: SessionStore;
  readonly #live = new Map<string, LiveSession>();
  readonly #legacy: LegacySseEndpoints | undefined;
  readonly #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(server: Server, options: StreamableHttpOptions = {}) {
    this.#server = server;
    const stateless = options.stateless ?? false;
    this.#options = {
      stateless,
      responseMode: options.responseMode ?? 'sse',
      eventStore:
        stateless || options.eventStore === false
          ? undefined
          : (options.eventStore ?? new MemoryEventStore()),
      sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
      maxSessions: options.maxSessions ?? 10_000,
      retryMs: options.retryMs ?? 1000,
      keepAliveMs: options.keepAliveMs ?? 15_000,
      maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
      endpoint: options.endpoint ?? '/mcp',
      legacySse:
        options.legacySse === false
          ? undefined
          : {
              ssePath: options.legacySse?.ssePath ?? '/sse',
              messagesPath: options.legacySse?.messagesPath ?? '/messages',
            },
    };
    this.#guard = new OriginGuard(options);
    this.#store = options.sessionStore ?? new MemorySessionStore();
    if (this.#options.legacySse)
      this.#legacy = new LegacySseEndpoints(server, this.#options.legacySse, this.#options);
    if (!stateless) {
      const every = Math.max(1000, Math.min(this.#options.sessionIdleTimeoutMs / 2, 60_000));
      this.#sweeper = setInterval(() => void this.sweep(), every);
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
  }

  /** Live sessions on this handler. */
  get sessionCount(): number {
    return this.#live.size;
  }

  async handle(request: Request): Promise<Response> {
    const refused = this.#guard.check(request.headers.get('host'), request.headers.get('origin'));
    if (refused) return jsonRpcErrorResponse(403, ErrorCode.InvalidRequest, `Forbidden: ${refused}`);
    const path = new URL(request.url).pathname;
    if (path !== this.#options.endpoint) {
      const legacy = await this.#legacy?.handle(request, path);
      return legacy ?? jsonRpcErrorResponse(404, ErrorCode.InvalidRequest, `Not found: ${path}`);
    }
    switch (request.method) {
      case 'POST':
        return this.#post(request);
      case 'GET':
        return this.#get(request);
      case 'DELETE':
        return this.#delete(request);
      default:
        return jsonRpcErrorResponse(405, ErrorCode.InvalidRequest, `Method not allowed: ${request.method}`, {
          allow: this.#options.stateless ? 'POST' : 'GET, POST, DELETE',
        });
    }
  }

  /** Open streams and waiting requests across live sessions (what a leak would grow). */
  get load(): { streams: number; pendingRequests: number } {
    let streams = 0;
    let pendingRequests = 0;
    for (const { transport } of this.#live.values()) {
      streams += transport.openStreams;
      pendingRequests += transport.pendingRequests;
    }
    return { streams, pendingRequests };
  }

  /** Closes sessions idle past the timeout. */
  async sweep(now = Date.now()): Promise<void> {
    for (const id of await this.#store.idleSince(now - this.#options.sessionIdleTimeoutMs))
      await this.#end(id);
  }

  async close(): Promise<void> {
    if (this.#sweeper) clearInterval(this.#sweeper);
    await Promise.all([...this.#live.keys()].map((id) => this.#end(id)));
    await this.#legacy?.close();
  }

  async #post(request: Request): Promise<Response> {
    const accept = request.headers.get('accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return jsonRpcErrorResponse(
        406,
        ErrorCode.InvalidRequest,
        'Not Acceptable: Accept must list application/json and text/event-stream',
      );
    }
    if (!(request.headers.get('content-type') ?? '').includes('application/json')) {
      return jsonRpcErrorResponse(
        415,
        ErrorCode.InvalidRequest,
        'Unsupported Media Type: Content-Type must be application/json',
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(request, this.#options.maxBodyBytes));
    } catch (error) {
      if (error instanceof BodyTooLargeError)
        return jsonRpcErrorResponse(413, ErrorCode.InvalidRequest, `Payload Too Large: ${error.message}`);
      return bad('Parse error: the body is not valid JSON', ErrorCode.ParseError);
    }
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? (body as unknown[]) : [body];
    if (messages.length === 0) return bad('Invalid request: an empty batch');
    const requestIds: RequestId[] = [];
    let initialize = false;
    for (const message of messages) {
      const item = classify(message);
      if (item.kind === 'invalid') return bad(`Invalid request: ${item.reason}`);
      if (item.kind === 'request') {
        requestIds.push(item.message.id);
        if (item.message.method === 'initialize') initialize = true;
      }
    }
    if (initialize && messages.length > 1) return bad('Invalid request: initialize must be sent alone');
    const version = request.headers.get('mcp-protocol-version');
    if (version !== null && !isLegacyRevision(version)) {
      return bad(
        `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${LEGACY_REVISIONS.join(', ')})`,
      );
    }

    if (this.#options.stateless) {
      const { session, transport } = await this.#connect(undefined);
      if (!initialize) session.assumeInitialized(version ?? '2025-03-26');
      // The per-request session ends once its last response is out.
      transport.onidle = () => void session.close();
      const response = await transport.post(messages, requestIds, batch, request.signal);
      if (transport.pendingRequests === 0) void session.close();
      return response;
    }

    if (initialize) {
      if (this.#live.size >= this.#options.maxSessions) {
        return jsonRpcErrorResponse(503, ErrorCode.InternalError, 'Service Unavailable: too many sessions', {
          'retry-after': '60',
        });
      }
      const id = crypto.randomUUID();
      const live = await this.#connect(id);
      this.#live.set(id, live);
      const now = Date.now();
      await this.#store.create({ id, createdAt: now, lastSeenAt: now });
      return live.transport.post(messages, requestIds, batch, request.signal);
    }
    const found = await this.#session(request);
    if (found instanceof Response) return found;
    if (batch && found.session.protocolVersion !== '2025-03-26') {
      return bad('Invalid request: JSON-RPC batches are only accepted from 2025-03-26 sessions');
    }
    return found.transport.post(messages, requestIds, batch, request.signal);
  }

  async #get(request: Request): Promise<Response> {
    if (this.#options.stateless) {
      return jsonRpcErrorResponse(
        405,
        ErrorCode.InvalidRequest,
        'Method not allowed: this server is stateless',
        { allow: 'POST' },
      );
    }
    if (!(request.headers.get('accept') ?? '').includes('text/event-stream')) {
      return jsonRpcErrorResponse(
        406,
        ErrorCode.InvalidRequest,
        'Not Acceptable: Accept must list text/event-stream',
      );
    }
    const found = await this.#session(request);
    if (found instanceof Response) return found;
    const lastEventId = request.headers.get('last-event-id');
    return lastEventId ? found.transport.resume(lastEventId) : found.transport.openStandalone();
  }

  async #delete(request: Request): Promise<Response> {
    if (this.#options.stateless) {
      return jsonRpcErrorResponse(
        405,
        ErrorCode.InvalidRequest,
        'Method not allowed: this server is stateless',
        { allow: 'POST' },
      );
    }
    const found = await this.#session(request);
    if (found instanceof Response) return found;
    await this.#end(found.transport.sessionId ?? '');
    return new Response(null, { status: 200 });
  }

  async #session(request: Request): Promise<LiveSession | Response> {
    const id = request.headers.get('mcp-session-id');
    if (!id) return bad('Bad Request: the Mcp-Session-Id header is required');
    const live = this.#live.get(id);
    if (!live)
      return jsonRpcErrorResponse(
        404,
        ErrorCode.InvalidRequest,
        'Not Found: the session does not exist or has ended',
      );
    await this.#store.update(id, { lastSeenAt: Date.now() });
    return live;
  }

  async #connect(sessionId: string | undefined): Promise<LiveSession> {
    const ref: { session?: ServerSession } = {};
    const transport = new HttpSessionTransport({
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(this.#options.eventStore ? { eventStore: this.#options.eventStore } : {}),
      responseMode: this.#options.responseMode,
      retryMs: this.#options.retryMs,
      keepAliveMs: this.#options.keepAliveMs,
      primeStreams: () => (ref.session?.protocolVersion ?? '') >= '2025-11-25',
      headers: sessionId === undefined ? {} : { 'mcp-session-id': sessionId },
    });
    const session = await this.#server.connect(transport);
    ref.session = session;
    if (sessionId !== undefined) {
      transport.onclose = chain(transport.onclose, () => {
        this.#live.delete(sessionId);
        void this.#store.delete(sessionId);
      });
    }
    return { session, transport };
  }

  async #end(id: string): Promise<void> {
    const live = this.#live.get(id);
    this.#live.delete(id);
    await this.#store.delete(id);
    await live?.session.close();
  }
}

function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}
