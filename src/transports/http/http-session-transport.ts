/**
 * The server side of one Streamable HTTP session (or of one stateless request): routes every outgoing
 * message to the HTTP response it belongs to. A POST that carries requests opens a logical stream; the
 * responses, and the notifications and requests related to them, go there (as SSE events or one JSON
 * body); unrelated messages go to the standalone GET stream. With an event store, every SSE event is
 * recorded and a client resumes a broken stream with `Last-Event-ID`.
 *
 * Disconnection rule: when the client goes away mid-call, the call keeps running if an event store can
 * replay its result on a resumed stream; without one (or in JSON mode) nothing could ever deliver the
 * result, so the call is cancelled as if the client had sent `notifications/cancelled`.
 * @module
 */
import type { ClientWatch, JsonReply, Reply } from './http-exchange.js';
import { ErrorCode, LocalErrorCode, asError } from '../../protocol/errors.js';
import { stringifyJson } from '../../protocol/json-text.js';
import { requestIdInUse, type JsonRpcMessage, type RequestId } from '../../protocol/jsonrpc.js';
import type { SendOptions, Transport } from '../../protocol/transport.js';
import { QueuedOutput } from '../queued-output.js';
import { TransportError } from '../transport-error.js';
import type { HttpSessionTransportOptions } from './http-session-transport-options.js';
import {
  emptyReply,
  isRateLimited,
  jsonResponse,
  jsonRpcErrorResponse,
  tooMuchUnread,
} from './http-status.js';
import type { LogicalStream } from './logical-stream.js';
import { SSE_HEADERS, SseSink, pacedByReader, pacedWithoutSink } from './sse-sink.js';

export type { HttpSessionTransportOptions } from './http-session-transport-options.js';

/**
 * Finished streams a session keeps resumable: a client that lost its connection resumes within a retry
 * interval, and only the streams it was reading; the rest of the session's history leaves the store.
 */
const FINISHED_KEPT = 32;

function isResponse(
  message: JsonRpcMessage,
): message is Extract<JsonRpcMessage, { id?: unknown }> & { id?: RequestId | null } {
  return 'result' in message || 'error' in message;
}

export class HttpSessionTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** No request is waiting for its response any more. */
  onidle?: () => void;
  readonly sessionId: string | undefined;
  readonly #options: HttpSessionTransportOptions;
  readonly #streams = new Map<string, LogicalStream>();
  #streamCount = 0;
  readonly #byRequest = new Map<RequestId, LogicalStream>();
  /**
   * With an event store, every stream id of this session is `<prefix>_<n>`: a random prefix (unguessable,
   * unique across processes) and a counter. `Last-Event-ID` may resume a stream of this session only, told
   * by its prefix: an open one, or one of the last `FINISHED_KEPT` finished ones (`#finished`), while the
   * store keeps it. Older finished streams are deleted from the store, all of them when the session ends:
   * keeping every id for the session's life grew ≈0.5 KB per POST, and the store as much.
   */
  readonly #prefix: string | undefined;
  /** The ids of the last finished recorded streams, oldest first (at most `FINISHED_KEPT`). */
  readonly #finished: string[] = [];
  #standalone: LogicalStream | undefined;
  #closed = false;
  /** What the session's SSE streams hold unread, all together. */
  readonly #queue: QueuedOutput;
  /** Events being recorded in the event store before they go to their stream; `close` waits for them. */
  #appending = 0;
  #appended: (() => void) | undefined;

  constructor(options: HttpSessionTransportOptions) {
    this.#options = options;
    this.sessionId = options.sessionId;
    if (options.eventStore) this.#prefix = `${crypto.randomUUID()}_`;
    this.#queue = new QueuedOutput(options);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Logical streams still open (POST streams awaiting responses, and the standalone stream). */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Streams `Last-Event-ID` may resume: open ones whose events go to the event store, and the last finished. */
  get resumableStreams(): number {
    let count = this.#finished.length;
    for (const stream of this.#streams.values()) if (this.#recorded(stream)) count++;
    return count;
  }

  /** Requests still waiting for their response. */
  get pendingRequests(): number {
    return this.#byRequest.size;
  }

  async start(): Promise<void> {}

  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#closed) throw new TransportError(LocalErrorCode.ConnectionClosed, 'The HTTP session is closed');
    if (Array.isArray(message)) {
      for (const item of message) await this.send(item, options);
      return;
    }
    const response = isResponse(message);
    const key = response ? message.id : options?.relatedRequestId;
    const stream = key === undefined || key === null ? undefined : this.#byRequest.get(key);
    if (stream) {
      const written = this.#write(stream, message, response ? (key ?? undefined) : undefined);
      if (written) await written;
      // A tool's progress and log messages wait while the client leaves its stream unread.
      if (!response && pacedByReader(message))
        await (stream.sink ? stream.sink.room() : pacedWithoutSink((stream.paced = (stream.paced ?? 0) + 1)));
      return;
    }
    if (response) return; // its request is gone (cancelled, or the session never saw it)
    if (this.#standalone) await this.#write(this.#standalone, message, undefined);
  }

  /**
   * Serves one POST: registers a stream for its requests, dispatches every message, and returns the
   * HTTP response (202 when it carried no request).
   */
  post(
    messages: readonly unknown[],
    requestIds: readonly RequestId[],
    batch: boolean,
    client: ClientWatch,
  ): Promise<Reply> {
    if (requestIds.length === 0) {
      for (const message of messages) this.onmessage?.(message);
      return Promise.resolve(emptyReply(202, this.#options.headers));
    }
    const problem = this.#idProblem(requestIds);
    if (problem !== undefined) {
      // Refused whole, before anything is dispatched: its answers could not be told from the first's.
      return Promise.resolve(this.#error(400, ErrorCode.InvalidRequest, problem));
    }
    // The client leaves too much unread: no new work until it reads (answers and cancellations still go in).
    if (this.#queue.full) {
      const revision = this.#options.protocolVersion?.();
      return Promise.resolve(tooMuchUnread(this.#queue, this.#options.headers, revision));
    }
    const stream = this.#open(false, requestIds);
    if (this.#options.responseMode === 'json') {
      let unwatch = (): void => {};
      const result = new Promise<Reply>((resolve) => {
        stream.json = { responses: [], batch, resolve, unwatch: () => unwatch() };
      });
      unwatch = client.onGone(() => this.#disconnected(stream));
      // A batch goes to the engine whole, as on stdio: its answers are held for one body anyway, and the
      // engine counts them against `maxBatchAnswerBytes`. (On an SSE stream each answer is an event.)
      if (batch) this.onmessage?.(messages);
      else for (const message of messages) this.onmessage?.(message);
      return result;
    }
    const sink = this.#attach(stream);
    const response = new Response(sink.body, {
      status: 200,
      headers: { ...SSE_HEADERS, ...this.#options.headers },
    });
    return this.#prime(stream, sink).then(() => {
      for (const message of messages) this.onmessage?.(message);
      return response;
    });
  }

  /** An error response of this session: its headers, the `id` shaped by its revision. */
  #error(status: number, code: number, message: string): JsonReply {
    return jsonRpcErrorResponse(
      status,
      code,
      message,
      this.#options.headers,
      this.#options.protocolVersion?.(),
    );
  }

  /** Why a POST's request ids cannot be served: one is still in use by an unanswered request, or repeated. */
  #idProblem(requestIds: readonly RequestId[]): string | undefined {
    if (requestIds.length === 1) {
      const id = requestIds[0]!;
      return this.#byRequest.has(id) ? requestIdInUse(id) : undefined;
    }
    const seen = new Set<RequestId>();
    for (const id of requestIds) {
      if (this.#byRequest.has(id)) return requestIdInUse(id);
      if (seen.has(id)) return `Invalid request: request id ${JSON.stringify(id)} appears twice in the batch`;
      seen.add(id);
    }
    return undefined;
  }

  /** Serves a GET without `Last-Event-ID`: the standalone stream for unrelated messages (one at a time). */
  async openStandalone(): Promise<Reply> {
    if (this.#standalone?.sink && !this.#standalone.sink.closed) {
      return this.#error(
        409,
        ErrorCode.InvalidRequest,
        'Conflict: a GET stream is already open for this session',
      );
    }
    this.#standalone ??= this.#open(true, []);
    const sink = this.#attach(this.#standalone);
    await this.#prime(this.#standalone, sink);
    return new Response(sink.body, { status: 200, headers: { ...SSE_HEADERS, ...this.#options.headers } });
  }

  /** Serves a GET with `Last-Event-ID`: replays what followed that event on its stream, then goes on live. */
  async resume(lastEventId: string): Promise<Reply> {
    const store = this.#options.eventStore;
    // Only this session's streams, told by their prefix, may be resumed here.
    const ours = this.#prefix !== undefined && lastEventId.startsWith(this.#prefix);
    const replay = store && ours ? await store.replayAfter(lastEventId) : undefined;
    if (!replay) {
      return this.#error(404, ErrorCode.InvalidRequest, `Unknown Last-Event-ID: ${lastEventId}`);
    }
    const live = this.#streams.get(replay.streamId);
    const sink = new SseSink(this.#options.keepAliveMs, this.#queue);
    for (const event of replay.events) sink.replayed({ id: event.id, data: stringifyJson(event.message) });
    if (live) {
      live.sink?.close();
      live.sink = sink;
      sink.oncancel = () => this.#disconnected(live);
      sink.onoverflow = sink.oncancel;
    } else {
      sink.close();
    }
    return new Response(sink.body, { status: 200, headers: { ...SSE_HEADERS, ...this.#options.headers } });
  }

  closeStream(relatedRequestId: RequestId): void {
    const stream = this.#byRequest.get(relatedRequestId);
    if (!stream?.sink || !this.#options.eventStore) return;
    stream.sink.event({ retry: this.#options.retryMs });
    stream.sink.close();
    stream.sink = undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // What was sent before close still reaches its stream (e.g. the last answers of a graceful stop).
    if (this.#appending > 0) await new Promise<void>((resolve) => (this.#appended = resolve));
    const open = [...this.#streams.values()];
    for (const stream of open) {
      stream.sink?.close();
      stream.json?.unwatch();
      stream.json?.resolve(this.#error(503, ErrorCode.InternalError, 'The session closed'));
    }
    this.#streams.clear();
    this.#byRequest.clear();
    const store = this.#options.eventStore;
    if (store) {
      for (const stream of open) if (this.#recorded(stream)) await store.deleteStream(stream.id);
      for (const id of this.#finished.splice(0)) await store.deleteStream(id);
    }
    this.onclose?.();
  }

  #open(standalone: boolean, requestIds: readonly RequestId[]): LogicalStream {
    const stream: LogicalStream = {
      // Stream ids are part of event ids only with an event store (then prefixed, see `#prefix`);
      // otherwise they only key this session's map.
      id: `${this.#prefix ?? ''}${++this.#streamCount}`,
      standalone,
      pending: new Set(requestIds),
      sink: undefined,
      json: undefined,
    };
    this.#streams.set(stream.id, stream);
    for (const id of requestIds) this.#byRequest.set(id, stream);
    return stream;
  }

  /** Whether a stream's events go to the event store (SSE streams, when there is one). */
  #recorded(stream: LogicalStream): boolean {
    return this.#prefix !== undefined && (stream.standalone || this.#options.responseMode === 'sse');
  }

  #attach(stream: LogicalStream): SseSink {
    const sink = new SseSink(this.#options.keepAliveMs, this.#queue);
    stream.sink = sink;
    sink.oncancel = () => this.#disconnected(stream);
    // Too much unread: the stream ends after what it holds, as if the client had gone (it may resume).
    sink.onoverflow = sink.oncancel;
    return sink;
  }

  async #prime(stream: LogicalStream, sink: SseSink): Promise<void> {
    const store = this.#options.eventStore;
    if (!store || !this.#options.primeStreams()) return;
    const id = await store.append(stream.id, null);
    sink.event({ id, retry: this.#options.retryMs, data: '' });
  }

  /** Writes a message to a stream; returns a promise only when it has to wait (an SSE event store). */
  #write(
    stream: LogicalStream,
    message: JsonRpcMessage,
    responseId: RequestId | undefined,
  ): Promise<void> | undefined {
    if (stream.json) {
      // A JSON response has room for the answers only; anything else goes to the standalone stream.
      if (responseId === undefined)
        return this.#standalone && this.#write(this.#standalone, message, undefined);
      stream.json.responses.push(message);
      this.#settle(stream, responseId);
      return undefined;
    }
    return this.#event(stream, message, responseId);
  }

  async #event(
    stream: LogicalStream,
    message: JsonRpcMessage,
    responseId: RequestId | undefined,
  ): Promise<void> {
    const store = this.#options.eventStore;
    let id: string | undefined;
    if (store) {
      this.#appending += 1;
      try {
        id = await store.append(stream.id, message);
      } finally {
        this.#appending -= 1;
        if (this.#appending === 0) this.#appended?.();
      }
    }
    stream.sink?.event(
      id === undefined ? { data: stringifyJson(message) } : { id, data: stringifyJson(message) },
    );
    if (responseId !== undefined) this.#settle(stream, responseId);
  }

  #settle(stream: LogicalStream, id: RequestId): void {
    stream.pending.delete(id);
    this.#byRequest.delete(id);
    if (this.#byRequest.size === 0 && this.onidle) queueMicrotask(() => this.onidle?.());
    if (stream.pending.size > 0 || stream.standalone) return;
    this.#streams.delete(stream.id);
    if (this.#recorded(stream)) this.#keepFinished(stream.id);
    if (stream.json) {
      const { responses, batch, resolve, unwatch } = stream.json;
      unwatch();
      // A lone answer that is a rate-limit refusal is a 429 (with Retry-After), as in the stateless era.
      const status = !batch && isRateLimited(responses[0]) ? 429 : 200;
      resolve(jsonResponse(batch ? responses : responses[0], status, this.#options.headers));
    }
    stream.sink?.close();
  }

  /** Keeps a finished stream resumable, and deletes the oldest such stream from the store past the limit. */
  #keepFinished(id: string): void {
    this.#finished.push(id);
    if (this.#finished.length <= FINISHED_KEPT) return;
    const deleted = this.#options.eventStore?.deleteStream(this.#finished.shift()!);
    if (deleted instanceof Promise) deleted.catch((error: unknown) => this.onerror?.(asError(error)));
  }

  /** The client went away from a stream. */
  #disconnected(stream: LogicalStream): void {
    stream.sink = undefined;
    if (stream.standalone || this.#closed) return;
    if (this.#options.eventStore && !stream.json) return; // resumable: the result waits for a GET
    for (const requestId of [...stream.pending]) {
      this.#byRequest.delete(requestId);
      this.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'The client disconnected' },
      });
    }
    stream.pending.clear();
    this.#streams.delete(stream.id);
    if (this.#byRequest.size === 0) this.onidle?.();
  }
}
