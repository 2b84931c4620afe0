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
import { SseReply, type ClientWatch, type JsonReply, type Reply } from './http-exchange.js';
import { ErrorCode, LocalErrorCode, asError } from '../../protocol/errors.js';
import { stringifyJson } from '../../protocol/json-text.js';
import { requestIdInUse, type JsonRpcMessage, type RequestId } from '../../protocol/jsonrpc.js';
import type { SendOptions, Transport } from '../../protocol/transport.js';
import { QueuedOutput } from '../queued-output.js';
import { TransportError } from '../transport-error.js';
import type { HttpSessionConfig, SessionRoute } from './http-session-transport-options.js';
import {
  emptyReply,
  answerStatus,
  jsonResponse,
  jsonRpcErrorResponse,
  storeFailedAnswer,
  tooMuchUnread,
} from './http-status.js';
import type { LogicalStream } from './logical-stream.js';
import { SmallMap } from '../../protocol/engine/small-map.js';
import { SseSink, pacedByReader, pacedWithoutSink, sseHeaders } from './sse-sink.js';
import { SseStart } from './sse-start.js';
import { flatString } from './flat-string.js';

export type { HttpSessionConfig, SessionRoute } from './http-session-transport-options.js';

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
  /** The handler's, shared by its sessions. */
  readonly #config: HttpSessionConfig;
  readonly #route: SessionRoute | undefined;
  /** Headers every response of this session carries (its session id). */
  readonly #headers: Record<string, string>;
  /** Mostly one stream at a time (and none when idle): no hash table kept per idle session. */
  readonly #streams = new SmallMap<string, LogicalStream>();
  #streamCount = 0;
  readonly #byRequest = new SmallMap<RequestId, LogicalStream>();
  /**
   * With an event store, every recorded stream's id is `<prefix>_<n>`: a random prefix (unguessable,
   * unique across processes) and a counter. `Last-Event-ID` may resume a stream of this session only, told
   * by its prefix: an open one, or one of the last `FINISHED_KEPT` finished ones (`#finished`), while the
   * store keeps it. Older finished streams are deleted from the store, all of them when the session ends:
   * keeping every id for the session's life grew ≈0.5 KB per POST, and the store as much. Made with the
   * first stream that needs it (one flat string).
   */
  #prefix: string | undefined;
  /** The ids of the last finished recorded streams, oldest first (at most `FINISHED_KEPT`), once any. */
  #finished: string[] | undefined;
  #standalone: LogicalStream | undefined;
  #closed = false;
  /**
   * The headers of every SSE response of the session: one object, so each reply's `writeHead` sees the
   * same shape (made with the first SSE response).
   */
  #sse: Readonly<Record<string, string>> | undefined;
  /** What the session's SSE streams hold unread, all together (made with the first SSE stream). */
  #output: QueuedOutput | undefined;
  /** Events being recorded in the event store before they go to their stream; `close` waits for them. */
  #appending = 0;
  #appended: (() => void) | undefined;

  /**
   * @param config the handler's, shared by its sessions
   * @param sessionId undefined: a stateless request's transport
   * @param route how a session shared by several processes reaches them
   */
  constructor(config: HttpSessionConfig, sessionId?: string, route?: SessionRoute) {
    this.#config = config;
    this.sessionId = sessionId;
    this.#route = route;
    this.#headers = sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
  }

  get #sseHeaders(): Readonly<Record<string, string>> {
    return (this.#sse ??= sseHeaders(this.sessionId));
  }

  get #queue(): QueuedOutput {
    return (this.#output ??= new QueuedOutput(this.#config));
  }

  /**
   * The prefix of this session's recorded streams' ids: a shared session's streams are told by its id,
   * in whichever process they were opened.
   */
  get #streamPrefix(): string {
    return (this.#prefix ??= flatString(`${this.#sharedPrefix ?? ''}${crypto.randomUUID()}_`));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The prefix of every stream id of a shared session, whatever process opened the stream. */
  get #sharedPrefix(): string | undefined {
    const sessionId = this.sessionId;
    return this.#route && sessionId !== undefined ? `${sessionId}_` : undefined;
  }

  /** The session's standalone (`GET`) stream is here (open, or waiting for the client to resume it). */
  get holdsStandalone(): boolean {
    return this.#standalone !== undefined;
  }

  /** Logical streams still open (POST streams awaiting responses, and the standalone stream). */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** Streams `Last-Event-ID` may resume: open ones whose events go to the event store, and the last finished. */
  get resumableStreams(): number {
    let count = this.#finished?.length ?? 0;
    for (const stream of this.#streams.values()) if (this.#recorded(stream)) count++;
    return count;
  }

  /** No request waits for its response, no client reads a stream (a `GET` stream whose client left is none). */
  get idle(): boolean {
    if (this.#byRequest.size > 0) return false;
    for (const stream of this.#streams.values()) if (!stream.standalone || stream.sink) return false;
    return true;
  }

  /** Requests still waiting for their response. */
  get pendingRequests(): number {
    return this.#byRequest.size;
  }

  async start(): Promise<void> {}

  async send(sent: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#closed) throw new TransportError(LocalErrorCode.ConnectionClosed, 'The HTTP session is closed');
    if (Array.isArray(sent)) {
      for (const item of sent) await this.send(item, options);
      return;
    }
    const response = isResponse(sent);
    const key = response ? sent.id : options?.relatedRequestId;
    const route = this.#route;
    let message = route && !response ? route.outgoing(sent) : sent;
    // A shared session's record is brought up to date first; a store that fails there is the answer.
    const recorded = route && response ? route.beforeResponse(sent) : undefined;
    if (recorded) await recorded.catch((error: unknown) => (message = storeFailedAnswer(key, error)));
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
    // A shared session's GET stream may be held by another process.
    if (route && !this.#standalone && (await route.elsewhere(message)) > 0) return;
    if (this.#standalone) await this.#write(this.#standalone, message, undefined);
  }

  /**
   * A message another process sent for this session's standalone stream (a shared session): written
   * there, recorded for resumption; dropped when the stream is not here.
   */
  async deliverStandalone(message: JsonRpcMessage): Promise<void> {
    if (!this.#closed && this.#standalone) await this.#write(this.#standalone, message, undefined);
  }

  /** Another process took up this shared session's standalone stream: it ends here (its events stay). */
  releaseStandalone(): void {
    const standalone = this.#standalone;
    if (!standalone || this.#closed) return;
    this.#standalone = undefined;
    this.#streams.delete(standalone.id);
    standalone.sink?.close();
    standalone.sink = undefined;
    void this.#route?.standalone(false).catch(() => undefined);
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
    const route = this.#route;
    // Answers to another process's requests go there.
    if (route) messages = messages.map((message) => route.incoming(message)).filter((m) => m !== undefined);
    if (requestIds.length === 0) {
      for (const message of messages) this.onmessage?.(message);
      return Promise.resolve(emptyReply(202, this.#headers));
    }
    const problem = this.#idProblem(requestIds);
    if (problem !== undefined) {
      // Refused whole, before anything is dispatched: its answers could not be told from the first's.
      return Promise.resolve(this.#error(400, ErrorCode.InvalidRequest, problem));
    }
    // The client leaves too much unread: no new work until it reads (answers and cancellations still go in).
    if (this.#output?.full) {
      const revision = this.#config.protocolVersion?.(this);
      return Promise.resolve(tooMuchUnread(this.#output, this.#headers, revision));
    }
    const stream = this.#open(false, requestIds);
    if (this.#config.responseMode === 'json') {
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
    const dispatch = (): Promise<Reply> => {
      const { keepAliveMs, storesCanFail } = this.#config;
      if (!storesCanFail) {
        for (const message of messages) this.onmessage?.(message);
        return Promise.resolve(new SseReply(sink, this.#sseHeaders));
      }
      const lone = !batch && requestIds.length === 1;
      const options = { lone, keepAliveMs, client, sseHeaders: this.#sseHeaders, headers: this.#headers };
      const start = (stream.start = new SseStart(sink, options));
      for (const message of messages) this.onmessage?.(message);
      return start.reply;
    };
    // No priming event (the store failed): nothing was dispatched, the request ids are free again.
    const unprimed = (error: unknown): never => {
      for (const id of requestIds) this.#byRequest.delete(id);
      this.#streams.delete(stream.id);
      sink.close();
      throw error;
    };
    // With no priming event to record first, or one recorded at once (the memory event store), the
    // messages go in at once, as in JSON mode: an answer that comes at once is then in the sink when the
    // adapter gets the reply, and goes out with its headers in one write.
    let primed: Promise<void> | undefined;
    try {
      primed = this.#primes ? this.#prime(stream, sink) : undefined;
    } catch (error) {
      return Promise.reject(asError(error)).catch(unprimed);
    }
    if (primed === undefined) return dispatch();
    return primed.then(dispatch, unprimed);
  }

  /** Whether a new SSE stream starts with a priming event (recorded in the event store). */
  get #primes(): boolean {
    return (
      this.#config.eventStore !== undefined && (this.#config.protocolVersion?.(this) ?? '') >= '2025-11-25'
    );
  }

  /** An error response of this session: its headers, the `id` shaped by its revision. */
  #error(status: number, code: number, message: string): JsonReply {
    return jsonRpcErrorResponse(status, code, message, this.#headers, this.#config.protocolVersion?.(this));
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
    const standalone = (this.#standalone ??= this.#open(true, []));
    const sink = this.#attach(standalone);
    try {
      await this.#prime(standalone, sink);
      await this.#heard(sink);
    } catch (error) {
      // The store or the bus failed: no stream (the GET gets 503), another GET may try again.
      sink.close();
      if (standalone.sink === sink) standalone.sink = undefined;
      throw error;
    }
    return new SseReply(sink, this.#sseHeaders);
  }

  /** Serves a GET with `Last-Event-ID`: replays what followed that event on its stream, then goes on live. */
  async resume(lastEventId: string): Promise<Reply> {
    const store = this.#config.eventStore;
    // Only this session's streams, told by their prefix, may be resumed here (a shared session's made in
    // any process; else made here, once a stream was).
    const prefix = this.#sharedPrefix ?? this.#prefix;
    const ours = store !== undefined && prefix !== undefined && lastEventId.startsWith(prefix);
    const replay = store && ours ? await store.replayAfter(lastEventId) : undefined;
    if (!replay) {
      return this.#error(404, ErrorCode.InvalidRequest, `Unknown Last-Event-ID: ${lastEventId}`);
    }
    const live = this.#streams.get(replay.streamId) ?? this.#adopt(replay.streamId);
    const sink = new SseSink(this.#config.keepAliveMs, this.#queue);
    for (const event of replay.events) sink.replayed({ id: event.id, data: stringifyJson(event.message) });
    if (live) {
      live.sink?.close();
      live.start?.started();
      live.sink = sink;
      sink.oncancel = () => this.#disconnected(live);
      sink.onoverflow = sink.oncancel;
      if (live.standalone) await this.#heard(sink);
    } else {
      sink.close();
    }
    return new SseReply(sink, this.#sseHeaders);
  }

  closeStream(relatedRequestId: RequestId): void {
    const stream = this.#byRequest.get(relatedRequestId);
    if (!stream?.sink || !this.#config.eventStore) return;
    stream.start?.started();
    stream.sink.event({ retry: this.#config.retryMs });
    stream.sink.close();
    stream.sink = undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // What was sent before close still reaches its stream (e.g. the last answers of a graceful stop).
    if (this.#appending > 0) await new Promise<void>((resolve) => (this.#appended = resolve));
    const open = this.#streams.values();
    if (this.#standalone) void this.#route?.standalone(false).catch(() => undefined);
    for (const stream of open) {
      stream.sink?.close();
      stream.start?.started();
      stream.json?.unwatch();
      stream.json?.resolve(this.#error(503, ErrorCode.InternalError, 'The session closed'));
    }
    this.#streams.clear();
    this.#byRequest.clear();
    const store = this.#config.eventStore;
    // A shared session's streams outlive this process's copy (another may resume them; they expire by
    // the store's TTL).
    if (store && !this.#route) {
      try {
        for (const stream of open) if (this.#recorded(stream)) await store.deleteStream(stream.id);
        for (const id of this.#finished?.splice(0) ?? []) await store.deleteStream(id);
      } catch (error) {
        this.onerror?.(asError(error)); // the store failed: its TTL, if it has one, drops them
      }
    }
    this.onclose?.();
    this.#config.closed?.(this);
  }

  /**
   * A shared session's standalone stream opened by another process, resumed here: it becomes this
   * process's standalone stream (when this one has none open).
   */
  #adopt(streamId: string): LogicalStream | undefined {
    const shared = this.#sharedPrefix;
    if (shared === undefined || !streamId.startsWith(shared) || !/_g\d+$/.test(streamId)) return undefined;
    if (this.#standalone?.sink && !this.#standalone.sink.closed) return undefined;
    if (this.#standalone) this.#streams.delete(this.#standalone.id);
    const stream: LogicalStream = {
      id: streamId,
      standalone: true,
      pending: new Set(),
      sink: undefined,
      json: undefined,
    };
    this.#streams.set(streamId, stream);
    this.#standalone = stream;
    return stream;
  }

  /**
   * The standalone stream's sink is open here: a shared session hears, before the `GET` is answered,
   * what other processes send it (a failure closes the sink and rejects: the `GET` gets 503).
   */
  async #heard(sink: SseSink): Promise<void> {
    try {
      await this.#route?.standalone(true);
    } catch (error) {
      sink.close();
      throw error;
    }
  }

  #open(standalone: boolean, requestIds: readonly RequestId[]): LogicalStream {
    const count = ++this.#streamCount;
    const stream: LogicalStream = {
      // Stream ids are part of event ids when the stream is recorded (then prefixed, see `#prefix`);
      // otherwise they only key this session's map. A shared session's standalone stream is `…_g<n>`.
      id: this.#records(standalone)
        ? `${this.#streamPrefix}${standalone && this.#route ? 'g' : ''}${count}`
        : `${count}`,
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
    return this.#records(stream.standalone);
  }

  /** Whether a stream's events go to the event store: every SSE stream's, when there is one. */
  #records(standalone: boolean): boolean {
    return this.#config.eventStore !== undefined && (standalone || this.#config.responseMode === 'sse');
  }

  #attach(stream: LogicalStream): SseSink {
    const sink = new SseSink(this.#config.keepAliveMs, this.#queue);
    stream.sink = sink;
    sink.oncancel = () => this.#disconnected(stream);
    // Too much unread: the stream ends after what it holds, as if the client had gone (it may resume).
    sink.onoverflow = sink.oncancel;
    return sink;
  }

  /**
   * Writes a stream's priming event, once recorded in the event store: at once when the store answers at
   * once (no promise then), else when it has.
   */
  #prime(stream: LogicalStream, sink: SseSink): Promise<void> | undefined {
    const store = this.#config.eventStore;
    if (!store || !this.#primes) return undefined;
    const primed = (id: string): void => void sink.event({ id, retry: this.#config.retryMs, data: '' });
    const id = store.append(stream.id, null);
    if (typeof id !== 'string') return id.then(primed);
    primed(id);
    return undefined;
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

  /**
   * Writes a message as an SSE event, recorded in the event store first when there is one: at once when
   * the store answers at once (the memory store: no promise), else once it has. A store that fails (Redis
   * down) is reported and the event still goes out, without an id to resume from (a response withheld
   * would leave its request waiting for ever).
   */
  #event(
    stream: LogicalStream,
    message: JsonRpcMessage,
    responseId: RequestId | undefined,
  ): Promise<void> | undefined {
    const store = this.#config.eventStore;
    let appended: Promise<string> | string | undefined;
    if (store) {
      try {
        appended = store.append(stream.id, message);
      } catch (error) {
        this.onerror?.(asError(error));
      }
    }
    if (typeof appended !== 'object') return this.#emit(stream, message, appended, responseId);
    this.#appending += 1;
    return appended
      .then(
        (id) => this.#emit(stream, message, id, responseId),
        (error: unknown) => {
          this.onerror?.(asError(error));
          this.#emit(stream, message, undefined, responseId);
        },
      )
      .finally(() => {
        this.#appending -= 1;
        if (this.#appending === 0) this.#appended?.();
      });
  }

  /** Writes an event (`id`: its event id, when recorded) and settles the request it answers. */
  #emit(
    stream: LogicalStream,
    message: JsonRpcMessage,
    id: string | undefined,
    responseId: RequestId | undefined,
  ): undefined {
    // The POST's lone request answered first with a store failure: the POST's answer is a 503 instead.
    if (responseId === undefined || !stream.start?.answers(message))
      stream.sink?.event(
        id === undefined ? { data: stringifyJson(message) } : { id, data: stringifyJson(message) },
      );
    stream.start?.started();
    if (responseId !== undefined) this.#settle(stream, responseId);
    return undefined;
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
      // A lone answer that is a rate-limit refusal is a 429, a failed shared store a 503 (both with
      // Retry-After), as in the stateless era.
      const status = batch ? 200 : answerStatus(responses[0]);
      resolve(jsonResponse(batch ? responses : responses[0], status, this.#headers));
    }
    stream.sink?.close();
  }

  /** Keeps a finished stream resumable, and deletes the oldest such stream from the store past the limit. */
  #keepFinished(id: string): void {
    const finished = this.#finished;
    // An array made with room for one id (a first push would make room for 17).
    if (!finished) {
      this.#finished = [id];
      return;
    }
    finished.push(id);
    if (finished.length <= FINISHED_KEPT) return;
    const deleted = this.#config.eventStore?.deleteStream(finished.shift()!);
    if (deleted instanceof Promise) deleted.catch((error: unknown) => this.onerror?.(asError(error)));
  }

  /** The client went away from a stream. */
  #disconnected(stream: LogicalStream): void {
    stream.sink = undefined;
    if (stream.standalone || this.#closed) return;
    if (this.#config.eventStore && !stream.json) return; // resumable: the result waits for a GET
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
