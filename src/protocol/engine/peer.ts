/**
 * The JSON-RPC engine shared by client and server sessions: dispatches what arrives on a transport,
 * answers requests through registered handlers, correlates responses, and implements cancellation
 * (`notifications/cancelled`) and progress routing (`notifications/progress`) in both directions.
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError, ToolwireError, asError, errorMessage } from '../errors.js';
import {
  classify,
  type Classified,
  errorResponse,
  isJsonObject,
  notification,
  request as makeRequest,
  requestIdInUse,
  resultResponse,
  withMember,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../jsonrpc.js';
import type { SendOptions, Transport } from '../transport.js';
import { DeepJsonError, MAX_MESSAGE_DEPTH, isNestedDeeper } from '../json-depth.js';
import { jsonSize } from '../json-size.js';
import { knownJsonLength } from '../json-text.js';
import { isStoreFailure, storeUnavailableError } from '../store-unavailable.js';
import { isPromiseLike } from '../promise-like.js';
import type { ProgressParams } from '../types/lifecycle.js';
import { AnswerPacer, BatchAnswers, type Waiting } from './answer-pacer.js';
import { OutgoingRequests, type RequestOptions } from './outgoing-requests.js';
import {
  DEFAULT_MAX_BATCH_ANSWER_BYTES,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_REQUESTS_IN_FLIGHT,
  type PeerOptions,
} from './peer-options.js';
import { Handlers } from './handlers.js';
import { Inflight, type NotificationHandler, type RequestHandler } from './request-context.js';
import { SmallMap } from './small-map.js';

export type { RequestOptions } from './outgoing-requests.js';
export type { Cancellation } from './cancellation.js';
export {
  DEFAULT_MAX_BATCH_ANSWER_BYTES,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_REQUESTS_IN_FLIGHT,
  type PeerOptions,
} from './peer-options.js';
export type { NotificationHandler, RequestContext, RequestHandler } from './request-context.js';
export { Handlers } from './handlers.js';

export class Peer<C = unknown> {
  /** The handlers dispatched through: this peer's own, or a table shared by many (a server's sessions). */
  readonly #handlers: Handlers<C>;
  readonly #connection: C;
  /** Mostly one request at a time, and none when idle: no hash table kept per idle connection. */
  readonly #inflight = new SmallMap<RequestId, Inflight<C>>();
  /** Created on first use: most server sessions never send a request. */
  #outgoingRequests: OutgoingRequests | undefined;
  /** May be shared by many peers (a server's sessions): what differs per peer is its `connection`. */
  readonly #options: PeerOptions<C>;
  readonly #maxBatchSize: number;
  readonly #maxInflight: number;
  readonly #maxBatchAnswerBytes: number;
  /**
   * Requests read and not started yet: when they start, paced by the bytes of their answers. Made when a
   * request arrives while another runs (a peer that answers one request at a time, as each stateless-era
   * HTTP request's does, never needs one).
   */
  #pacing: AnswerPacer | undefined;
  #transport: Transport | undefined;
  #closed = false;
  /** Takes no new requests: `drain` was called. */
  #draining = false;
  /** Called when no request is in flight any more (or the peer closed), while someone drains. */
  #drainWaiters: Array<() => void> | undefined;
  /** Batches whose answer has not been sent yet. */
  #batches = 0;

  onclose?: () => void;
  onerror?: (error: Error) => void;

  /**
   * @param connection internal: what handlers see as `ctx.connection` (and notification handlers as their
   * second argument), and the hooks of `options` are given
   */
  constructor(options: PeerOptions<C> = {}, connection?: C) {
    this.#options = options;
    this.#handlers = options.handlers ?? new Handlers<C>();
    this.#connection = connection as C;
    this.#maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    this.#maxInflight = options.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT;
    this.#maxBatchAnswerBytes = options.maxBatchAnswerBytes ?? DEFAULT_MAX_BATCH_ANSWER_BYTES;
  }

  get #pacer(): AnswerPacer {
    return (this.#pacing ??= new AnswerPacer(
      (waiting) => this.#startWaiting(waiting),
      () => this.#transport,
    ));
  }

  #outgoing(): OutgoingRequests {
    return (this.#outgoingRequests ??= new OutgoingRequests((id, reason, method) => {
      if (method === 'initialize') return; // MUST NOT be cancelled
      this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => undefined);
    }));
  }

  get transport(): Transport | undefined {
    return this.#transport;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A request is running or waiting here, a batch waits for its answers, or a request of ours waits for
   * the other side's answer (a transport that unloads idle connections keeps this one).
   */
  get busy(): boolean {
    return !this.#idle() || (this.#outgoingRequests?.size ?? 0) > 0;
  }

  setRequestHandler(method: string, handler: RequestHandler<C>): void {
    this.#handlers.request(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler<C>): void {
    this.#handlers.notification(method, handler);
  }

  async connect(transport: Transport): Promise<void> {
    if (this.#transport)
      throw new ToolwireError(LocalErrorCode.AlreadyConnected, 'Peer is already connected');
    this.#transport = transport;
    transport.onmessage = (value) => this.#receive(value);
    transport.onerror = (error) => this.#transportError(error);
    transport.onclose = () => this.#handleClose();
    transport.onend = () => this.#ended();
    if (transport.backlog) transport.ondrain = () => this.#pacing?.resume();
    await transport.start();
  }

  /** Sends a request and resolves with its result; rejects with ProtocolError or ToolwireError. */
  request(method: string, params: JsonObject | undefined, options: RequestOptions = {}): Promise<JsonObject> {
    if (this.#closed || !this.#transport) {
      return Promise.reject(
        new ToolwireError(LocalErrorCode.ConnectionClosed, `Cannot send ${method}: the connection is closed`),
      );
    }
    const aborted = options.signal?.aborted
      ? options.signal
      : options.cancellation?.aborted
        ? options.cancellation
        : undefined;
    if (aborted) {
      return Promise.reject(
        new ToolwireError(
          LocalErrorCode.RequestCancelled,
          `Request ${method} was cancelled before it was sent`,
          { cause: aborted.reason },
        ),
      );
    }
    const outgoing = this.#outgoing();
    const id = outgoing.nextId();
    let sent = params;
    if (options.onProgress) {
      const meta = isJsonObject(params?._meta) ? params._meta : {};
      sent = withMember(params, '_meta', withMember(meta, 'progressToken', id));
    }
    const timeout = options.timeout ?? this.#options.defaultTimeout ?? 60_000;
    const result = outgoing.track(id, method, timeout, options);
    const sendOptions =
      options.relatedRequestId === undefined ? undefined : { relatedRequestId: options.relatedRequestId };
    // A failed send rejects the request with the transport's own error (e.g. an HTTP 401 with its
    // challenge), so the caller sees why; anything else becomes a SEND_FAILED error with it as the cause.
    this.#transport.send(makeRequest(id, method, sent), sendOptions).catch((error: unknown) => {
      outgoing.reject(
        id,
        error instanceof ToolwireError
          ? error
          : new ToolwireError(LocalErrorCode.SendFailed, `Send failed: ${errorMessage(error)}`, {
              cause: error,
            }),
      );
    });
    return result;
  }

  async notify(method: string, params?: object, options?: SendOptions): Promise<void> {
    if (this.#closed || !this.#transport) return;
    await this.#transport.send(notification(method, params), options);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#transport?.close();
    this.#handleClose();
  }

  /**
   * Stops taking requests (each new one is answered with -32603 at once) and waits, at most `graceMs`,
   * for those being answered; what still runs then is cancelled (its signal aborts) and answered with
   * -32603. Resolves once no request is in flight, or the connection closed. Answers and notifications
   * from the other side still go in meanwhile (a running request may be waiting for one).
   */
  drain(graceMs: number): Promise<void> {
    this.#draining = true;
    if (this.#closed || this.#idle()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#cancelInflight(graceMs), graceMs);
      (this.#drainWaiters ??= []).push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The other side sends nothing more: requests to it cannot be answered; ours finish, then we close. */
  #ended(): void {
    this.#outgoingRequests?.rejectAll(
      new ToolwireError(LocalErrorCode.ConnectionClosed, 'The other side closed its input'),
    );
    void this.drain(this.#options.endGraceMs ?? 0).then(() => this.close());
  }

  /** No request is running or waiting, and no batch waits for answers. */
  #idle(): boolean {
    return this.#inflight.size === 0 && this.#batches === 0 && (this.#pacing?.waiting ?? 0) === 0;
  }

  /**
   * The grace period is over: each request still running or waiting to start gets its answer now, and a
   * running one is cancelled.
   */
  #cancelInflight(graceMs: number): void {
    const message = `Request cancelled: the server shut down before it finished (grace period ${graceMs} ms)`;
    for (const inflight of this.#inflight.values()) {
      this.#inflight.delete(inflight.id);
      this.#respond(errorResponse(inflight.id, { code: ErrorCode.InternalError, message }));
      inflight.cancel(new ToolwireError(LocalErrorCode.RequestCancelled, message));
    }
    const waiting = this.#pacing?.takeAll() ?? [];
    for (const { message: request, resolve } of waiting)
      resolve(errorResponse(request.id, { code: ErrorCode.InternalError, message }));
    // Their answers go out in microtasks (through their batch, if any): the drain is over after them.
    if (waiting.length === 0) this.#drained();
    else setImmediate(() => this.#drained());
  }

  #drained(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = undefined;
    if (waiters) for (const resolve of waiters) resolve();
  }

  #handleClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Errors are built only when something waits for them (capturing a stack is costly, and a stateless
    // HTTP request closes a peer each time, usually with nothing pending).
    if (this.#outgoingRequests && this.#outgoingRequests.size > 0) {
      this.#outgoingRequests.rejectAll(
        new ToolwireError(LocalErrorCode.ConnectionClosed, 'The connection closed'),
      );
    }
    for (const inflight of this.#inflight.values()) {
      inflight.cancel(new ToolwireError(LocalErrorCode.ConnectionClosed, 'The connection closed'));
    }
    this.#inflight.clear();
    for (const waiting of this.#pacing?.takeAll() ?? []) waiting.resolve(undefined); // nowhere to answer
    this.#drained();
    this.#options.closed?.(this.#connection);
    this.onclose?.();
  }

  #transportError(error: Error): void {
    if (error instanceof ProtocolError && error.code === ErrorCode.ParseError) {
      this.#send(errorResponse(this.#options.unknownErrorId?.(this.#connection), error.toJSON()));
      // An answer refused for its depth still names its request: fail that now, not at its timeout.
      const deep = error.cause;
      if (deep instanceof DeepJsonError && deep.answer && deep.id !== undefined) {
        this.#outgoingRequests?.reject(
          deep.id,
          new ProtocolError(
            ErrorCode.ParseError,
            `The answer to request ${JSON.stringify(deep.id)} was refused unparsed: ${deep.message}`,
          ),
        );
      }
    } else if (error instanceof ToolwireError && error.code === LocalErrorCode.MessageTooLarge) {
      this.#send(
        errorResponse(this.#options.unknownErrorId?.(this.#connection), {
          code: ErrorCode.InvalidRequest,
          message: `Invalid request: ${error.message}`,
        }),
      );
    }
    this.#reportError(error);
  }

  #send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): void {
    if (this.#closed || !this.#transport) return;
    this.#transport.send(message, options).catch(this.#sendFailed);
  }

  readonly #sendFailed = (error: unknown): void => {
    this.#reportError(asError(error));
  };

  /** An error no request can be told of: to the options' `error` hook, then `onerror`. */
  #reportError(error: Error): void {
    this.#options.error?.(error, this.#connection);
    this.onerror?.(error);
  }

  #receive(value: unknown): void {
    if (Array.isArray(value)) {
      void this.#receiveBatch(value);
      return;
    }
    const pending = this.#dispatch(value);
    if (pending) void pending.then(this.#respond);
  }

  /** Sends the answer to a request (one function for all: no closure per message). */
  readonly #respond = (response: JsonRpcResponse | undefined): void => {
    if (response) {
      this.#pacing?.answered(answerSize(response));
      const id = response.id;
      this.#send(response, id === undefined || id === null ? undefined : { relatedRequestId: id });
    }
    // A drain is over once the last answer has gone to the transport (not when its handler settled).
    if (this.#drainWaiters) this.#checkDrained();
  };

  #checkDrained(): void {
    if (this.#idle()) this.#drained();
  }

  async #receiveBatch(values: unknown[]): Promise<void> {
    const reason =
      values.length === 0
        ? 'an empty batch'
        : !(this.#options.acceptBatch?.(this.#connection) ?? false)
          ? 'JSON-RPC batches are not supported by this revision'
          : values.length > this.#maxBatchSize
            ? `a batch of ${values.length} messages is over the limit of ${this.#maxBatchSize}`
            : undefined;
    if (reason !== undefined) {
      this.#send(
        errorResponse(this.#options.unknownErrorId?.(this.#connection), {
          code: ErrorCode.InvalidRequest,
          message: `Invalid request: ${reason}`,
        }),
      );
      return;
    }
    this.#batches += 1;
    // The answers wait for the last of them: what they hold is counted, against `maxBatchAnswerBytes`.
    const batch = new BatchAnswers();
    const held = (response: JsonRpcResponse | undefined): JsonRpcResponse | undefined => {
      if (response) {
        const bytes = answerSize(response);
        this.#pacer.answered(bytes);
        batch.bytes += bytes;
        this.#pacer.heldBytes += bytes;
      }
      return response;
    };
    const responses = await Promise.all(
      values.map((value) => this.#dispatch(value, batch)?.then(held) ?? Promise.resolve(undefined)),
    );
    this.#batches -= 1;
    this.#pacer.heldBytes -= batch.bytes;
    const out = responses.filter((r): r is JsonRpcResponse => r !== undefined);
    if (out.length > 0) this.#send(out);
    if (this.#drainWaiters) this.#checkDrained();
  }

  /** Handles one message; resolves with the response to send, if any. */
  #dispatch(value: unknown, batch?: BatchAnswers): Promise<JsonRpcResponse | undefined> | undefined {
    const item = classify(value);
    // Nothing past here recurses into a message deeper than this (validation, digests, JSON.stringify).
    if (item.kind !== 'invalid' && isNestedDeeper(item.message, MAX_MESSAGE_DEPTH))
      return this.#tooDeep(item);
    switch (item.kind) {
      case 'response':
        if (!this.#outgoingRequests?.settle(item.message)) {
          this.#reportError(
            new Error(`Received a response for an unknown request id ${String(item.message.id)}`),
          );
        }
        return undefined;
      case 'notification':
        this.#handleNotification(item.message);
        return undefined;
      case 'request':
        return this.#admit(item.message, batch);
      case 'invalid':
        return Promise.resolve(
          errorResponse(item.id ?? this.#options.unknownErrorId?.(this.#connection), {
            code: ErrorCode.InvalidRequest,
            message: `Invalid request: ${item.reason}`,
          }),
        );
    }
  }

  /**
   * A message nested deeper than {@link MAX_MESSAGE_DEPTH}: a request gets -32602, a response fails the
   * request it answers, a notification is dropped.
   */
  #tooDeep(item: Exclude<Classified, { kind: 'invalid' }>): Promise<JsonRpcResponse> | undefined {
    const what = `nested deeper than ${MAX_MESSAGE_DEPTH} levels`;
    switch (item.kind) {
      case 'request':
        return Promise.resolve(
          errorResponse(item.message.id, {
            code: ErrorCode.InvalidParams,
            message: `Invalid params: the request is ${what}`,
          }),
        );
      case 'response': {
        const id = item.message.id;
        const error = new ToolwireError(LocalErrorCode.InvalidResult, `The response is ${what}`);
        if (id !== null && id !== undefined) this.#outgoingRequests?.reject(id, error);
        return undefined;
      }
      case 'notification':
        this.#reportError(new Error(`Dropped a ${item.message.method} notification ${what}`));
        return undefined;
    }
  }

  #handleNotification(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    if (message.method === 'notifications/cancelled') {
      const id = params.requestId;
      if (typeof id !== 'string' && typeof id !== 'number') return;
      const inflight = this.#inflight.get(id);
      if (inflight && !inflight.cancelled) {
        const reason = typeof params.reason === 'string' ? params.reason : 'cancelled by the peer';
        inflight.cancel(new ToolwireError(LocalErrorCode.RequestCancelled, reason));
      } else {
        // Not started yet: it never will be, and a cancelled request gets no answer.
        this.#pacing?.take(id)?.resolve(undefined);
        if (this.#drainWaiters) this.#checkDrained();
      }
      return;
    }
    if (message.method === 'notifications/progress') {
      this.#outgoingRequests?.progress(params as unknown as ProgressParams);
      return;
    }
    const handler = this.#handlers.notificationHandler(message.method);
    if (!handler) return;
    try {
      const done = handler(params, this.#connection);
      if (done) done.catch((error: unknown) => this.#reportError(asError(error)));
    } catch (error) {
      this.#reportError(asError(error));
    }
  }

  /**
   * Takes a request that arrived: refuses it (draining, too many in flight, its id in use), starts it now,
   * or puts it in line for the pacer; resolves with its response (undefined once cancelled).
   */
  #admit(message: JsonRpcRequest, batch: BatchAnswers | undefined): Promise<JsonRpcResponse | undefined> {
    const { id } = message;
    if (this.#draining || this.#inflight.size + (this.#pacing?.waiting ?? 0) >= this.#maxInflight) {
      return Promise.resolve(this.#draining ? shuttingDown(id) : this.#overInflightCap(id));
    }
    // An id still in use would route both answers, and a cancellation, to one request: the first one
    // goes on, the second is refused (a cancelled request that still runs gives its id up).
    const running = this.#inflight.get(id);
    if ((running && !running.cancelled) || this.#pacing?.has(id)) {
      return Promise.resolve(
        errorResponse(id, { code: ErrorCode.InvalidRequest, message: requestIdInUse(id) }),
      );
    }
    const refusal = batch && this.#overBatchAnswers(id);
    if (refusal) return Promise.resolve(refusal);
    // Nothing runs or waits, and the reader keeps up: no pacing needed (the common case of one at a time).
    if (!this.#pacing && this.#inflight.size === 0 && !batch && !this.#transport?.backlog?.full) {
      return this.#handleRequest(message);
    }
    if (this.#pacer.tryStart()) return this.#handleRequest(message);
    return this.#pacer.wait(message, batch);
  }

  /** The pacer's turn for a request in line: it starts, or is refused when batches hold too much. */
  #startWaiting(waiting: Waiting): boolean {
    const refusal = waiting.batch && this.#overBatchAnswers(waiting.message.id);
    if (refusal) {
      waiting.resolve(refusal);
      return false;
    }
    waiting.resolve(this.#handleRequest(waiting.message));
    return true;
  }

  /**
   * The answer to a request of a batch that is not started because this connection's unfinished batches
   * already hold `maxBatchAnswerBytes` of answers: -31429, `limit: 'batch-answers'`; undefined while under.
   */
  #overBatchAnswers(id: RequestId): JsonRpcResponse | undefined {
    const max = this.#maxBatchAnswerBytes;
    if (this.#pacer.heldBytes < max) return undefined;
    return errorResponse(id, {
      code: ErrorCode.RateLimited,
      message: `Not run: the answers of this connection's unfinished JSON-RPC batches already hold ${this.#pacer.heldBytes} bytes (the limit is ${max}); send this request on its own or in a later batch`,
      data: { retryAfterMs: 0, limit: 'batch-answers' },
    });
  }

  /**
   * Runs a request's handler; resolves with its response (undefined once cancelled). Not async: a
   * handler's result is taken as it comes, with no frame kept across an `await` (this is every request).
   */
  #handleRequest(message: JsonRpcRequest): Promise<JsonRpcResponse | undefined> {
    const { id, method } = message;
    const params = message.params ?? {};
    // The request's context is its in-flight record (a class: accessors on literals are slow to create).
    const meta = isJsonObject(params._meta) ? params._meta : undefined;
    const inflight = new Inflight<C>(id, method, meta, this.#connection);
    this.#inflight.set(id, inflight);
    let pending: Promise<object> | object;
    try {
      const handler = this.#handlers.requestHandler(method);
      if (!handler) throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
      pending = handler(params, inflight);
    } catch (error) {
      return Promise.resolve(this.#failed(inflight, error));
    }
    if (!isPromiseLike(pending)) return Promise.resolve(this.#answered(inflight, pending));
    return Promise.resolve(pending).then(
      (result) => this.#answered(inflight, result),
      (error: unknown) => this.#failed(inflight, error),
    );
  }

  /** The answer to a request past `maxRequestsInFlight`: -31429, the handler never runs. */
  #overInflightCap(id: RequestId): JsonRpcResponse {
    const max = this.#maxInflight;
    return errorResponse(id, {
      code: ErrorCode.RateLimited,
      message: `Too many requests in flight: ${max} requests of this connection are still being answered (the limit); send more once answers arrive`,
      data: { retryAfterMs: 1000, limit: 'in-flight' },
    });
  }

  #answered(inflight: Inflight<C>, result: object): JsonRpcResponse | undefined {
    this.#settled(inflight);
    return inflight.cancelled ? undefined : resultResponse(inflight.id, result);
  }

  #failed(inflight: Inflight<C>, error: unknown): JsonRpcResponse | undefined {
    this.#settled(inflight);
    if (inflight.cancelled) return undefined;
    const id = inflight.id;
    if (error instanceof ProtocolError) return errorResponse(id, error.toJSON());
    // A shared store (Redis) that failed is no bug: "try again later", naming the store.
    if (isStoreFailure(error)) return errorResponse(id, storeUnavailableError(error.message));
    this.#reportError(asError(error));
    return errorResponse(id, {
      code: ErrorCode.InternalError,
      message: `Internal error: ${errorMessage(error)}`,
    });
  }

  #settled(inflight: Inflight<C>): void {
    if (this.#inflight.get(inflight.id) === inflight) this.#inflight.delete(inflight.id);
  }
}

/** The characters of a response's JSON text: known when its result was serialized once, else estimated. */
function answerSize(response: JsonRpcResponse): number {
  const result = (response as { result?: unknown }).result;
  const known = typeof result === 'object' && result !== null ? knownJsonLength(result) : undefined;
  return known === undefined ? jsonSize(response) : known + 40;
}

/** The answer to a request that arrives while the peer drains. */
function shuttingDown(id: RequestId): JsonRpcResponse {
  return errorResponse(id, {
    code: ErrorCode.InternalError,
    message: 'Server shutting down: it takes no new requests',
  });
}
