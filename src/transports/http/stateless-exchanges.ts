/**
 * The exchanges of a Streamable HTTP handler that are served on a session of their own, which ends
 * with the exchange: stateless-era (2026-07-28) requests, and a stateless server's lone handshake-era
 * requests in JSON mode. A `subscriptions/listen` stream is held open like a session, so it is capped
 * like one: `maxSessions` streams in all (503), `maxSessionsPerClient` per client (429, shared with the
 * sessions).
 * @module
 */
import { watchClient, type HttpRequestLike, type Reply } from './http-exchange.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { HandshakeRevision } from '../../protocol/revisions/index.js';
import type { Principal } from '../../server/index.js';
import type { ServerRuntime } from '../../server/server-runtime.js';
import type { ServerSession } from '../../server/server-session.js';
import type { ClientSlots } from './client-slots.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { jsonResponse, shuttingDown, tooManyForClient } from './http-status.js';
import { StatelessRequestTransport } from './stateless-request-transport.js';

export class StatelessExchanges {
  readonly #server: ServerRuntime;
  readonly #options: ResolvedHttpOptions;
  readonly #slots: ClientSlots;
  readonly #open = new Set<StatelessRequestTransport>();
  /** Open `subscriptions/listen` streams. */
  #listens = 0;
  #closing = false;

  constructor(server: ServerRuntime, options: ResolvedHttpOptions, slots: ClientSlots) {
    this.#server = server;
    this.#options = options;
    this.#slots = slots;
  }

  /** Open SSE streams and unanswered requests (what a leak would grow). */
  get load(): { streams: number; pendingRequests: number } {
    let streams = 0;
    let pendingRequests = 0;
    for (const exchange of this.#open) {
      if (exchange.streaming) streams += 1;
      if (exchange.pending) pendingRequests += 1;
    }
    return { streams, pendingRequests };
  }

  /** The handler is closing: no new exchange starts (503). */
  refuseNew(): void {
    this.#closing = true;
  }

  /** Whether a transport is one of these exchanges'. */
  has(transport: object): boolean {
    return this.#open.has(transport as StatelessRequestTransport);
  }

  /** Serves `message` on a session of its own (`handshake`: the handshake-era revision it speaks). */
  async serve(
    request: HttpRequestLike,
    message: JsonRpcRequest,
    principal: Principal | undefined,
    handshake?: HandshakeRevision,
  ): Promise<Reply> {
    if (this.#closing) return shuttingDown();
    const listen = message.method === 'subscriptions/listen';
    let slot: string | undefined;
    if (listen) {
      const taken = this.#listenSlot(request, message);
      if (typeof taken === 'object') return taken;
      slot = taken;
    }
    const transport = new StatelessRequestTransport({
      // A listen stream is a stream whatever the mode: its notifications are all it carries.
      responseMode: listen ? 'sse' : this.#options.responseMode,
      keepAliveMs: this.#options.keepAliveMs,
      handshake: handshake !== undefined,
      queueLimits: this.#options,
      clientAddress: this.#options.clientAddress(request),
    });
    let session: ServerSession;
    try {
      session = await this.#server.connect(transport, principal ? { principal } : {});
    } catch (error) {
      if (listen) this.#listenEnded(slot);
      throw error;
    }
    if (handshake !== undefined) session.assumeInitialized(handshake);
    this.#open.add(transport);
    transport.onfinish = () => {
      this.#open.delete(transport);
      if (listen) this.#listenEnded(slot);
      void session.close();
    };
    return transport.serve(message, watchClient(request));
  }

  async close(): Promise<void> {
    await Promise.all([...this.#open].map((exchange) => exchange.close()));
  }

  /** A place for a listen stream: its client's slot key (undefined: not counted), or the refusal. */
  #listenSlot(request: HttpRequestLike, message: JsonRpcRequest): string | undefined | Reply {
    const { maxSessions, maxSessionsPerClient, handshakeTimeoutMs } = this.#options;
    if (this.#listens >= maxSessions) {
      const error = {
        code: ErrorCode.InternalError,
        message: 'Service Unavailable: too many listen streams',
      };
      return jsonResponse({ jsonrpc: '2.0', id: message.id, error }, 503, { 'retry-after': '60' });
    }
    const slot = this.#slots.take(this.#options.clientAddress(request));
    if (slot === false) return tooManyForClient(maxSessionsPerClient, handshakeTimeoutMs, message.id, null);
    this.#listens++;
    return slot;
  }

  #listenEnded(slot: string | undefined): void {
    this.#listens--;
    this.#slots.release(slot);
  }
}
