/**
 * The server side of one stateless-era (2026-07-28) Streamable HTTP exchange: one POSTed request served
 * on its own short-lived session, answered with one JSON body or an SSE stream that carries the
 * request's notifications (progress, log messages) and ends with its response. No session id, no event
 * ids, no resumption: the client closing the stream (or aborting the POST) cancels the request.
 *
 * The HTTP status waits for the first message: an error response that comes before anything else is
 * sent as JSON with the status its code maps to (-32602 → 400, -32601 → 404, …); otherwise the status is
 * 200, and in SSE mode the stream starts with the first notification, the response, or the first
 * keep-alive, whichever comes first (so a long silent call still gets keep-alives).
 *
 * A stateless server serves a lone handshake-era request in JSON mode the same way (`handshake`), with that
 * era's statuses: 200 for any JSON-RPC answer, 429 for a rate-limit refusal.
 * @module
 */
import { SseReply, type ClientWatch, type Reply } from './http-exchange.js';
import { ErrorCode, LocalErrorCode } from '../../protocol/errors.js';
import { stringifyJson } from '../../protocol/json-text.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../protocol/jsonrpc.js';
import type { SendOptions, Transport } from '../../protocol/transport.js';
import { TransportError } from '../transport-error.js';
import { answerStatus, httpStatusFor, jsonResponse } from './http-status.js';
import { isStoreUnavailable } from '../../protocol/store-unavailable.js';
import { QueuedOutput, type QueueLimitOptions } from '../queued-output.js';
import { SSE_HEADERS } from './sse-wire.js';
import { pacedByReader } from './sse-pacing.js';
import { SseSink } from './sse-sink.js';

export interface StatelessRequestOptions {
  responseMode: 'sse' | 'json';
  /** Keep-alive comments on the SSE stream, in ms (0: none). */
  keepAliveMs: number;
  /** A handshake-era request (on a stateless server): errors are answered with status 200 (429 when rate-limited). */
  handshake?: boolean;
  /** Output the SSE stream may hold unread (see `StreamableHttpOptions`; default 8 MiB, 4096 messages). */
  queueLimits?: QueueLimitOptions;
  /** The client's address (the `clientAddress` option's reading of the request). */
  clientAddress?: string | undefined;
}

export class StatelessRequestTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** The exchange is over (answered, cancelled or closed); its session may go. */
  onfinish?: () => void;
  readonly #options: StatelessRequestOptions;
  #id: RequestId | undefined;
  /** Settles the HTTP response; undefined once it is settled. */
  #resolve: ((response: Reply) => void) | undefined;
  #sink: SseSink | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #finished = false;
  #closed = false;

  readonly clientAddress: string | undefined;

  constructor(options: StatelessRequestOptions) {
    this.#options = options;
    this.clientAddress = options.clientAddress;
  }

  /** One exchange, one request: see `Transport.perRequest`. */
  get perRequest(): true {
    return true;
  }

  /** The request has not been answered, cancelled or closed yet. */
  get pending(): boolean {
    return !this.#finished;
  }

  /** An SSE response stream is open. */
  get streaming(): boolean {
    return this.#sink !== undefined && !this.#sink.closed;
  }

  async start(): Promise<void> {}

  /** Dispatches the request; resolves with its HTTP response. `client` tells when the client goes away. */
  serve(message: JsonRpcRequest, client: ClientWatch): Promise<Reply> {
    this.#id = message.id;
    const response = new Promise<Reply>((resolve) => (this.#resolve = resolve));
    if (client.gone) {
      this.#finish();
      this.#settle(this.#gone());
      return response;
    }
    client.onGone(() => this.#cancel());
    const { responseMode, keepAliveMs } = this.#options;
    if (responseMode === 'sse' && keepAliveMs > 0) {
      this.#timer = setTimeout(() => this.#stream()?.write(': keep-alive\n\n'), keepAliveMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
    this.onmessage?.(message);
    return response;
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#closed) throw new TransportError(LocalErrorCode.ConnectionClosed, 'The HTTP exchange is over');
    if (Array.isArray(message)) {
      for (const item of message) await this.send(item, options);
      return;
    }
    if (this.#finished) return;
    const response = 'result' in message || 'error' in message;
    // The stateless era has no messages unrelated to the request.
    if ((response ? message.id : options?.relatedRequestId) !== this.#id) return;
    if (!response) {
      // JSON mode has room for the response only.
      if (this.#options.responseMode !== 'sse') return;
      const sink = this.#stream();
      sink?.event({ data: stringifyJson(message) });
      // A tool's progress and log messages wait while the client leaves its stream unread.
      if (pacedByReader(message)) await sink?.room();
      return;
    }
    this.#finish();
    if (this.#resolve) {
      const status = !('error' in message)
        ? 200
        : this.#options.handshake
          ? answerStatus(message)
          : isStoreUnavailable(message)
            ? 503
            : httpStatusFor(message.error.code);
      if (status !== 200 || this.#options.responseMode === 'json') {
        this.#settle(jsonResponse(message, status));
        return;
      }
    }
    const sink = this.#stream();
    sink?.event({ data: stringifyJson(message) });
    sink?.close();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#finish();
    // Every exchange is closed when it ends; one still unanswered gets a 503 (built only then).
    if (this.#resolve) {
      this.#settle(
        jsonResponse(
          {
            jsonrpc: '2.0',
            id: this.#id ?? null,
            error: { code: ErrorCode.InternalError, message: 'The server closed' },
          },
          503,
        ),
      );
    }
    this.#sink?.close();
    this.onclose?.();
  }

  /** The SSE stream, started (with status 200) if it was not; undefined once a JSON response went out. */
  #stream(): SseSink | undefined {
    if (this.#sink) return this.#sink;
    if (!this.#resolve) return undefined;
    if (this.#timer) clearTimeout(this.#timer);
    const sink = new SseSink(this.#options.keepAliveMs, new QueuedOutput(this.#options.queueLimits));
    sink.oncancel = () => this.#cancel();
    sink.onoverflow = sink.oncancel; // the client left too much unread: as if it had gone
    this.#sink = sink;
    this.#settle(new SseReply(sink, SSE_HEADERS));
    return sink;
  }

  #settle(response: Reply): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    resolve?.(response);
  }

  /** The client went away before the response: the request is cancelled and nothing more is sent. */
  #cancel(): void {
    if (this.#finished) return;
    this.#finish();
    this.#settle(this.#gone());
    this.#sink?.close();
    this.onmessage?.({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: this.#id ?? null, reason: 'The client closed the connection' },
    });
  }

  #gone(): Reply {
    return jsonResponse(
      {
        jsonrpc: '2.0',
        id: this.#id ?? null,
        error: { code: ErrorCode.InvalidRequest, message: 'The client went away' },
      },
      400,
    );
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    if (this.#timer) clearTimeout(this.#timer);
    queueMicrotask(() => this.onfinish?.());
  }
}
