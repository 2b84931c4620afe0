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
import { SseReply, type ClientWatch, type Reply } from './http-exchange.js';
import { ErrorCode, LocalErrorCode, asError } from '../../protocol/errors.js';
import { stringifyJson } from '../../protocol/json-text.js';
import type { JsonRpcMessage, RequestId } from '../../protocol/jsonrpc.js';
import type { SendOptions, Transport } from '../../protocol/transport.js';
import { TransportError } from '../transport-error.js';
import { emptyReply, storeFailedAnswer, tooMuchUnread } from './http-status.js';
import type { LogicalStream } from './logical-stream.js';
import { HttpSessionStreams } from './http-session-streams.js';
import { sseHeaders } from './sse-wire.js';
import { pacedByReader, pacedWithoutSink } from './sse-pacing.js';
import { SseSink } from './sse-sink.js';
import { SseStart } from './sse-start.js';

export type { HttpSessionConfig, SessionRoute } from './http-session-transport-options.js';

/**
 * Requests that send nothing before their response, answered with one JSON body whatever the response
 * mode: the 2025-11-25 tasks spec has servers not upgrade a `tasks/get` to an SSE stream where possible,
 * and `tasks/list` and `tasks/cancel` are as quick. (`tasks/result` waits, and carries a task's questions.)
 */
const ANSWERED_WITH_JSON: ReadonlySet<unknown> = new Set(['tasks/get', 'tasks/list', 'tasks/cancel']);

/** Whether every request among a POST's messages is answered with JSON in any mode. */
function answeredWithJson(messages: readonly unknown[]): boolean {
  return messages.every((message) => {
    const { id, method } = message as { id?: unknown; method?: unknown };
    return id === undefined || method === undefined || ANSWERED_WITH_JSON.has(method);
  });
}

function isResponse(
  message: JsonRpcMessage,
): message is Extract<JsonRpcMessage, { id?: unknown }> & { id?: RequestId | null } {
  return 'result' in message || 'error' in message;
}

/**
 * Writes what the session's server sends to the stream it belongs to, and serves the session's POSTs and
 * GETs; which streams there are, and which request's answer goes to which, is its `HttpSessionStreams` base.
 */
export class HttpSessionTransport extends HttpSessionStreams implements Transport {
  onclose?: () => void;
  #closed = false;
  /**
   * The headers of every SSE response of the session: one object, so each reply's `writeHead` sees the
   * same shape (made with the first SSE response).
   */
  #sse: Readonly<Record<string, string>> | undefined;
  /** Events being recorded in the event store before they go to their stream; `close` waits for them. */
  #appending = 0;
  #appended: (() => void) | undefined;

  get #sseHeaders(): Readonly<Record<string, string>> {
    return (this.#sse ??= sseHeaders(this.sessionId));
  }

  get closed(): boolean {
    return this.#closed;
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
    const route = this.route;
    let message = route && !response ? route.outgoing(sent) : sent;
    // A shared session's record is brought up to date first; a store that fails there is the answer.
    const recorded = route && response ? route.beforeResponse(sent) : undefined;
    if (recorded)
      await recorded.catch((error: unknown) => {
        message = storeFailedAnswer(key, error);
        this.onerror?.(asError(error)); // why the store failed: the peer hears only which store
      });
    const stream = key === undefined || key === null ? undefined : this.streamFor(key);
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
    if (route && !this.standalone && (await route.elsewhere(message)) > 0) return;
    const standalone = this.standalone;
    if (standalone) await this.#write(standalone, message, undefined);
  }

  /**
   * A message another process sent for this session's standalone stream (a shared session): written
   * there, recorded for resumption; dropped when the stream is not here.
   */
  async deliverStandalone(message: JsonRpcMessage): Promise<void> {
    const standalone = this.standalone;
    if (!this.#closed && standalone) await this.#write(standalone, message, undefined);
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
    const route = this.route;
    // Answers to another process's requests go there.
    if (route) messages = messages.map((message) => route.incoming(message)).filter((m) => m !== undefined);
    if (requestIds.length === 0) {
      for (const message of messages) this.onmessage?.(message);
      return Promise.resolve(emptyReply(202, this.headers));
    }
    const problem = this.idProblem(requestIds);
    if (problem !== undefined) {
      // Refused whole, before anything is dispatched: its answers could not be told from the first's.
      return Promise.resolve(this.error(400, ErrorCode.InvalidRequest, problem));
    }
    // The client leaves too much unread: no new work until it reads (answers and cancellations still go in).
    const output = this.output;
    if (output?.full) {
      const revision = this.config.protocolVersion?.(this);
      return Promise.resolve(tooMuchUnread(output, this.headers, revision));
    }
    const stream = this.open(false, requestIds);
    if (this.config.responseMode === 'json' || answeredWithJson(messages)) {
      let unwatch = (): void => {};
      const result = new Promise<Reply>((resolve) => {
        stream.json = { responses: [], batch, resolve, unwatch: () => unwatch() };
      });
      unwatch = client.onGone(() => this.disconnected(stream));
      // A batch goes to the engine whole, as on stdio: its answers are held for one body anyway, and the
      // engine counts them against `maxBatchAnswerBytes`. (On an SSE stream each answer is an event.)
      if (batch) this.onmessage?.(messages);
      else for (const message of messages) this.onmessage?.(message);
      return result;
    }
    const sink = this.attach(stream);
    const dispatch = (): Promise<Reply> => {
      const { keepAliveMs, storesCanFail } = this.config;
      if (!storesCanFail) {
        for (const message of messages) this.onmessage?.(message);
        return Promise.resolve(new SseReply(sink, this.#sseHeaders));
      }
      const lone = !batch && requestIds.length === 1;
      const options = { lone, keepAliveMs, client, sseHeaders: this.#sseHeaders, headers: this.headers };
      const start = (stream.start = new SseStart(sink, options));
      for (const message of messages) this.onmessage?.(message);
      return start.reply;
    };
    // No priming event (the store failed): nothing was dispatched, the request ids are free again.
    const unprimed = (error: unknown): never => {
      this.unopen(stream, requestIds);
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
      this.config.eventStore !== undefined && (this.config.protocolVersion?.(this) ?? '') >= '2025-11-25'
    );
  }

  /** Serves a GET without `Last-Event-ID`: the standalone stream for unrelated messages (one at a time). */
  async openStandalone(): Promise<Reply> {
    if (this.standaloneRead) {
      return this.error(
        409,
        ErrorCode.InvalidRequest,
        'Conflict: a GET stream is already open for this session',
      );
    }
    const standalone = this.standaloneStream();
    const sink = this.attach(standalone);
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

  /**
   * Serves a GET with `Last-Event-ID`: replays what followed that event on its stream, then goes on live.
   * An event this session cannot replay (another session's, one its stream's retention dropped, none
   * stored) is a 400: a 404 would tell the client the session ended, and have it start a new one.
   */
  async resume(lastEventId: string): Promise<Reply> {
    const store = this.config.eventStore;
    // Only this session's streams, told by their prefix, may be resumed here.
    const ours = store !== undefined && this.owns(lastEventId);
    const replay = store && ours ? await store.replayAfter(lastEventId) : undefined;
    if (!replay) {
      return this.error(400, ErrorCode.InvalidRequest, `Unknown Last-Event-ID: ${lastEventId}`);
    }
    const live = this.resumed(replay.streamId);
    const sink = new SseSink(this.config.keepAliveMs, this.queue);
    for (const event of replay.events) sink.replayed({ id: event.id, data: stringifyJson(event.message) });
    if (live) {
      live.sink?.close();
      live.start?.started();
      live.sink = sink;
      sink.oncancel = () => this.disconnected(live);
      sink.onoverflow = sink.oncancel;
      if (live.standalone) await this.#heard(sink);
    } else {
      sink.close();
    }
    return new SseReply(sink, this.#sseHeaders);
  }

  closeStream(relatedRequestId: RequestId): void {
    const stream = this.streamFor(relatedRequestId);
    if (!stream?.sink || !this.config.eventStore) return;
    stream.start?.started();
    stream.sink.event({ retry: this.config.retryMs });
    stream.sink.close();
    stream.sink = undefined;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // What was sent before close still reaches its stream (e.g. the last answers of a graceful stop).
    if (this.#appending > 0) await new Promise<void>((resolve) => (this.#appended = resolve));
    const open = this.endStreams();
    const store = this.config.eventStore;
    // A shared session's streams outlive this process's copy (another may resume them; they expire by
    // the store's TTL).
    if (store && !this.route) {
      try {
        for (const stream of open) if (this.recorded(stream)) await store.deleteStream(stream.id);
        for (const id of this.takeFinished()) await store.deleteStream(id);
      } catch (error) {
        this.onerror?.(asError(error)); // the store failed: its TTL, if it has one, drops them
      }
    }
    this.onclose?.();
    this.config.closed?.(this);
  }

  /**
   * The standalone stream's sink is open here: a shared session hears, before the `GET` is answered,
   * what other processes send it (a failure closes the sink and rejects: the `GET` gets 503).
   */
  async #heard(sink: SseSink): Promise<void> {
    try {
      await this.route?.standalone(true);
    } catch (error) {
      sink.close();
      throw error;
    }
  }

  /**
   * Writes a stream's priming event, once recorded in the event store: at once when the store answers at
   * once (no promise then), else when it has.
   */
  #prime(stream: LogicalStream, sink: SseSink): Promise<void> | undefined {
    const store = this.config.eventStore;
    if (!store || !this.#primes) return undefined;
    const primed = (id: string): void => void sink.event({ id, retry: this.config.retryMs, data: '' });
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
        return this.standalone && this.#write(this.standalone, message, undefined);
      stream.json.responses.push(message);
      this.settle(stream, responseId);
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
    const store = this.config.eventStore;
    let appended: Promise<string> | string | undefined;
    // Serialized once, for the store and the stream alike (the memory store keeps the text, not the
    // message's objects, which the garbage collector would carry from generation to generation).
    let data: string | undefined;
    if (store) {
      try {
        data = stringifyJson(message);
        appended = store.append(stream.id, message, data);
      } catch (error) {
        this.onerror?.(asError(error));
      }
    }
    if (typeof appended !== 'object') return this.#emit(stream, message, data, appended, responseId);
    this.#appending += 1;
    return appended
      .then(
        (id) => this.#emit(stream, message, data, id, responseId),
        (error: unknown) => {
          this.onerror?.(asError(error));
          this.#emit(stream, message, data, undefined, responseId);
        },
      )
      .finally(() => {
        this.#appending -= 1;
        if (this.#appending === 0) this.#appended?.();
      });
  }

  /**
   * Writes an event (`data`: the message's JSON when made already; `id`: its event id, when recorded) and
   * settles the request it answers.
   */
  #emit(
    stream: LogicalStream,
    message: JsonRpcMessage,
    data: string | undefined,
    id: string | undefined,
    responseId: RequestId | undefined,
  ): undefined {
    // The POST's lone request answered first with a store failure: the POST's answer is a 503 instead.
    if (responseId === undefined || !stream.start?.answers(message)) {
      const text = data ?? stringifyJson(message);
      stream.sink?.event(id === undefined ? { data: text } : { id, data: text });
    }
    stream.start?.started();
    if (responseId !== undefined) this.settle(stream, responseId);
    return undefined;
  }
}
