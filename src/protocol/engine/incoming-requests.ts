/**
 * Requests the other side sent a peer: taken or refused (draining, too many in flight, an id in use, a
 * batch whose answers hold too much), started at once or paced by the bytes of their answers, run through
 * the handlers, answered (alone, or together with the rest of their JSON-RPC batch), and cancelled by the
 * other side, at the end of a drain's grace period, or when the connection closes. The peer routes what
 * arrives; this side of it answers.
 * @module
 */
import { echoedName } from '../echoed-name.js';
import { ErrorCode, LocalErrorCode, ProtocolError, ToolwireError, errorMessage } from '../errors.js';
import {
  errorResponse,
  isJsonObject,
  requestIdInUse,
  resultResponse,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../jsonrpc.js';
import type { SendOptions, Transport } from '../transport.js';
import { jsonSize } from '../json-size.js';
import { dropSerializedAhead, knownJsonLength, serializeAhead } from '../json-text.js';
import { isStoreFailure, storeUnavailableError } from '../store-unavailable.js';
import { isPromiseLike } from '../promise-like.js';
import { AnswerPacer, BatchAnswers, type Waiting } from './answer-pacer.js';
import {
  DEFAULT_MAX_BATCH_ANSWER_BYTES,
  DEFAULT_MAX_REQUESTS_IN_FLIGHT,
  type PeerOptions,
} from './peer-options.js';
import type { Handlers } from './handlers.js';
import { Inflight } from './request-context.js';
import { SmallMap } from './small-map.js';

export class IncomingRequests<C = unknown> {
  readonly #handlers: Handlers<C>;
  readonly #connection: C;
  /** The peer's: an error no request can be told of (one function for all: no closure per send). */
  readonly #reportError: (error: unknown) => void;
  /** Mostly one request at a time, and none when idle: no hash table kept per idle connection. */
  readonly #inflight = new SmallMap<RequestId, Inflight<C>>();
  readonly #maxInflight: number;
  readonly #maxBatchAnswerBytes: number;
  readonly #admitWaiting: PeerOptions<C>['admitWaiting'];
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
  /**
   * Answers of requests that took the unpaced path and were answered at once (a synchronous handler),
   * not yet handed to `respond`: the peer's reaction sends them. While one is unsent, the next request is
   * not "one at a time" and goes through the pacer, which counts what the transport holds.
   */
  #unsent = 0;

  /**
   * @param connection what handlers see as `ctx.connection`
   * @param reportError the peer's: told of an error no request can be told of
   */
  constructor(
    options: PeerOptions<C>,
    handlers: Handlers<C>,
    connection: C,
    reportError: (error: unknown) => void,
  ) {
    this.#handlers = handlers;
    this.#connection = connection;
    this.#reportError = reportError;
    this.#maxInflight = options.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_IN_FLIGHT;
    this.#maxBatchAnswerBytes = options.maxBatchAnswerBytes ?? DEFAULT_MAX_BATCH_ANSWER_BYTES;
    this.#admitWaiting = options.admitWaiting;
  }

  get #pacer(): AnswerPacer {
    return (this.#pacing ??= new AnswerPacer(
      (waiting) => this.#startWaiting(waiting),
      () => this.#transport,
    ));
  }

  /** The peer connected: answers go out on `transport`. */
  connected(transport: Transport): void {
    this.#transport = transport;
  }

  /** No request is running or waiting, and no batch waits for answers. */
  get idle(): boolean {
    return this.#inflight.size === 0 && this.#batches === 0 && (this.#pacing?.waiting ?? 0) === 0;
  }

  /** Characters of the params of the requests waiting to start, where they are counted (`admitWaiting`). */
  get waitingBytes(): number {
    return this.#pacing?.waitingBytes ?? 0;
  }

  /** The transport's backlog came down: what waits may go on. */
  resume(): void {
    this.#pacing?.resume();
  }

  /** See `Peer.drain`. */
  drain(graceMs: number): Promise<void> {
    this.#draining = true;
    if (this.#closed || this.idle) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#cancelInflight(graceMs), graceMs);
      (this.#drainWaiters ??= []).push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * The grace period is over: each request still running or waiting to start gets its answer now, and a
   * running one is cancelled.
   */
  #cancelInflight(graceMs: number): void {
    const message = `Request cancelled: the server shut down before it finished (grace period ${graceMs} ms)`;
    for (const inflight of this.#inflight.values()) {
      this.#inflight.delete(inflight.id);
      this.respond(errorResponse(inflight.id, { code: ErrorCode.InternalError, message }));
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

  #checkDrained(): void {
    if (this.idle) this.#drained();
  }

  /** The connection closed: what runs is cancelled, what waits is never answered (nowhere to answer). */
  close(): void {
    this.#closed = true;
    for (const inflight of this.#inflight.values()) {
      inflight.cancel(new ToolwireError(LocalErrorCode.ConnectionClosed, 'The connection closed'));
    }
    this.#inflight.clear();
    for (const waiting of this.#pacing?.takeAll() ?? []) waiting.resolve(undefined); // nowhere to answer
    this.#drained();
  }

  /** `notifications/cancelled` from the other side: the request it names is cancelled. */
  cancelled(params: JsonObject): void {
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
  }

  /**
   * Sends an answer, or an error the peer answers unasked (a batch it refuses, a line it could not parse);
   * nothing once the connection closed. A failed send goes to the peer's error report.
   */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): void {
    if (this.#closed || !this.#transport) return;
    this.#transport.send(message, options).catch(this.#reportError);
  }

  /** Sends the answer to a request (one function for all: no closure per message). */
  readonly respond = (response: JsonRpcResponse | undefined): void => {
    if (this.#unsent > 0) this.#unsent -= 1;
    if (response) {
      const id = response.id;
      const options = id === undefined || id === null ? undefined : { relatedRequestId: id };
      const pacer = this.#pacing;
      if (pacer && this.#transport?.backlog) {
        // A transport that counts its backlog serializes what it sends as it sends it, with `stringifyJson`
        // (stdio, the HTTP clients): serialized here, the answer's length is exact, the transport takes
        // the text, and no walk estimates it (≈7% of a pipelined call's instructions).
        pacer.answered(aheadLength(response));
        this.send(response, options);
        dropSerializedAhead();
      } else {
        pacer?.answered(answerSize(response));
        this.send(response, options);
      }
    }
    // A drain is over once the last answer has gone to the transport (not when its handler settled).
    if (this.#drainWaiters) this.#checkDrained();
  };

  /** A JSON-RPC batch arrived: its answers wait for the last of them (`holdAnswer`, then `answerBatch`). */
  startBatch(): BatchAnswers {
    this.#batches += 1;
    return new BatchAnswers();
  }

  /** An answer of `batch` is ready: what it holds is counted, against `maxBatchAnswerBytes`. */
  holdAnswer(batch: BatchAnswers, response: JsonRpcResponse | undefined): JsonRpcResponse | undefined {
    if (response) {
      const bytes = answerSize(response);
      this.#pacer.answered(bytes);
      batch.bytes += bytes;
      this.#pacer.heldBytes += bytes;
    }
    return response;
  }

  /** Every answer of `batch` is ready: they go out as one message. */
  answerBatch(batch: BatchAnswers, responses: ReadonlyArray<JsonRpcResponse | undefined>): void {
    this.#batches -= 1;
    this.#pacer.heldBytes -= batch.bytes;
    const out = responses.filter((r): r is JsonRpcResponse => r !== undefined);
    if (out.length > 0) this.send(out);
    if (this.#drainWaiters) this.#checkDrained();
  }

  /**
   * Takes a request that arrived: refuses it (draining, too many in flight, its id in use), starts it now,
   * or puts it in line for the pacer; resolves with its response (undefined once cancelled). A lone request
   * put in line returns undefined: its answer goes out through `respond` from the pacer's turn.
   */
  admit(
    message: JsonRpcRequest,
    batch: BatchAnswers | undefined,
    related?: RequestId,
  ): Promise<JsonRpcResponse | undefined> | undefined {
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
    if (
      !this.#pacing &&
      this.#inflight.size === 0 &&
      this.#unsent === 0 &&
      !batch &&
      !this.#transport?.backlog?.full
    ) {
      const answer = this.#handleRequest(message, related);
      // Answered already (its record is gone): sent once the peer's reaction runs, not before the next
      // request of this read is admitted — which must not take this path too (64 requests for 1 MiB
      // answers in one chunk would all run, and 64 MiB wait for a client that reads nothing).
      if (this.#inflight.size === 0) this.#unsent += 1;
      return answer;
    }
    const pacer = this.#pacer;
    if (pacer.tryStart()) return this.#handleRequest(message, related);
    // It waits, and its params with it: where they are counted, past what may wait it is answered now.
    const bytes = this.#admitWaiting ? jsonSize(message.params ?? {}) : 0;
    const refused = this.#admitWaiting?.(message, bytes, pacer.waitingBytes, this.#connection);
    if (refused) return Promise.resolve(errorResponse(id, refused.toJSON()));
    // A batch's answer joins the batch's; a lone request's goes out from the pacer's turn, as it is made.
    if (batch) return new Promise((resolve) => pacer.wait(message, batch, resolve, related, bytes));
    pacer.wait(message, undefined, this.respond, related, bytes);
    return undefined;
  }

  /** The pacer's turn for a request in line: it starts, or is refused when batches hold too much. */
  #startWaiting(waiting: Waiting): boolean {
    const refusal = waiting.batch && this.#overBatchAnswers(waiting.message.id);
    if (refusal) {
      waiting.resolve(refusal);
      return false;
    }
    void this.#handleRequest(waiting.message, waiting.related).then(waiting.resolve);
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
  #handleRequest(message: JsonRpcRequest, related?: RequestId): Promise<JsonRpcResponse | undefined> {
    const { id, method } = message;
    const params = message.params ?? {};
    // The request's context is its in-flight record (a class: accessors on literals are slow to create).
    const meta = isJsonObject(params._meta) ? params._meta : undefined;
    const inflight = new Inflight<C>(id, method, meta, this.#connection, related);
    this.#inflight.set(id, inflight);
    let pending: Promise<object> | object;
    try {
      const handler = this.#handlers.requestHandler(method);
      if (!handler) {
        throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${echoedName(method)}`);
      }
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
    // A shared store (Redis) that failed is no bug: "try again later", naming the store (and why, to the
    // server's onError only).
    if (isStoreFailure(error)) {
      this.#reportError(error);
      return errorResponse(id, storeUnavailableError(error));
    }
    this.#reportError(error);
    return errorResponse(id, {
      code: ErrorCode.InternalError,
      message: `Internal error: ${errorMessage(error)}`,
    });
  }

  #settled(inflight: Inflight<C>): void {
    if (this.#inflight.get(inflight.id) === inflight) this.#inflight.delete(inflight.id);
  }
}

/** The length of a response's JSON text, serialized ahead; 0 when it cannot be (the send fails it then). */
function aheadLength(response: JsonRpcResponse): number {
  try {
    return serializeAhead(response);
  } catch {
    return 0;
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
