/**
 * The start of a session's SSE answer to a POST (handshake era): its HTTP status waits for the stream's
 * first event, as a stateless-era exchange's does. Until then nothing has been sent, so a POST holding one
 * request whose first event is that request's answer saying a shared store failed (Redis down: a rate limit
 * or a task the call needed, or the session's record) gets that answer as a JSON body with status 503 and
 * `Retry-After`, never an error event under a 200 it could not take back. Any other first event starts the
 * stream (200), and so do a keep-alive (after `keepAliveMs` with nothing to send, 15 s when keep-alives
 * are off), the server ending the stream, and the client going away. Once the stream has started, a store
 * that fails is told by the request's JSON-RPC error response on the stream (-32603, its id, the store
 * named): HTTP cannot change a status already sent. Only a session whose stores can fail holds its status
 * so (`storesCanFail`); with the memory stores the stream starts at once, its priming event with it.
 * @module
 */
import { SseReply, type ClientWatch, type Reply } from './http-exchange.js';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { isStoreUnavailable } from '../../protocol/store-unavailable.js';
import { jsonResponse } from './http-status.js';
import type { SseSink } from './sse-sink.js';

/** How long the status waits for a first event when keep-alives are off. */
const HOLD_WITHOUT_KEEP_ALIVE_MS = 15_000;

export class SseStart {
  /** The POST's answer: the SSE stream once it starts, or a whole JSON answer instead. */
  readonly reply: Promise<Reply>;
  #resolve: ((reply: Reply) => void) | undefined;
  readonly #sink: SseSink;
  readonly #sseHeaders: Readonly<Record<string, string>>;
  /** The session's headers, for a JSON answer. */
  readonly #headers: Record<string, string>;
  /** The POST holds one request, whose answer may be the whole HTTP answer. */
  readonly #lone: boolean;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #unwatch: () => void;

  constructor(
    sink: SseSink,
    options: {
      lone: boolean;
      keepAliveMs: number;
      client: ClientWatch;
      sseHeaders: Readonly<Record<string, string>>;
      headers: Record<string, string>;
    },
  ) {
    this.#sink = sink;
    this.#sseHeaders = options.sseHeaders;
    this.#headers = options.headers;
    this.#lone = options.lone;
    this.reply = new Promise<Reply>((resolve) => (this.#resolve = resolve));
    const { keepAliveMs } = options;
    this.#timer = setTimeout(
      () => {
        if (keepAliveMs > 0) sink.write(': keep-alive\n\n');
        this.started();
      },
      keepAliveMs > 0 ? keepAliveMs : HOLD_WITHOUT_KEEP_ALIVE_MS,
    );
    (this.#timer as { unref?: () => void }).unref?.();
    this.#unwatch = options.client.onGone(() => {
      if (!this.#resolve) return;
      this.started();
      sink.disconnect(); // as the adapter would have: the stream's requests are cancelled, or kept to resume
    });
  }

  /**
   * A response about to be the stream's first event: when it is the lone request's store failure, the POST
   * is answered with it as JSON (503) instead, and true is returned (the stream never starts).
   */
  answers(message: JsonRpcMessage): boolean {
    if (!this.#resolve || !this.#lone || !isStoreUnavailable(message)) return false;
    this.#settle(jsonResponse(message, 503, this.#headers));
    this.#sink.abort(); // what it held (a priming event) was never sent
    return true;
  }

  /** The stream starts (status 200), with what its sink holds; nothing more happens on later calls. */
  started(): void {
    if (this.#resolve) this.#settle(new SseReply(this.#sink, this.#sseHeaders));
  }

  #settle(reply: Reply): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    clearTimeout(this.#timer);
    this.#unwatch();
    resolve?.(reply);
  }
}
