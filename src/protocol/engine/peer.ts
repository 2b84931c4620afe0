/**
 * The JSON-RPC engine shared by client and server sessions: dispatches what arrives on a transport,
 * answers requests through registered handlers (`IncomingRequests`), correlates responses
 * (`OutgoingRequests`), and implements cancellation (`notifications/cancelled`) and progress routing
 * (`notifications/progress`) in both directions.
 * @module
 */
import { withoutStack } from '../without-stack.js';
import { ErrorCode, LocalErrorCode, ProtocolError, ToolwireError, asError, errorMessage } from '../errors.js';
import {
  classify,
  type Classified,
  errorResponse,
  isJsonObject,
  notification,
  request as makeRequest,
  withMember,
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type RequestId,
} from '../jsonrpc.js';
import type { MessageTooLargeDetails, SendOptions, Transport } from '../transport.js';
import { DeepJsonError, MAX_MESSAGE_DEPTH, isNestedDeeper } from '../json-depth.js';
import type { ProgressParams } from '../types/lifecycle.js';
import type { BatchAnswers } from './answer-pacer.js';
import { IncomingRequests } from './incoming-requests.js';
import { OutgoingRequests, type RequestOptions } from './outgoing-requests.js';
import { DEFAULT_MAX_BATCH_SIZE, type PeerOptions } from './peer-options.js';
import { Handlers } from './handlers.js';
import type { NotificationHandler, RequestHandler } from './request-context.js';

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
  /** The requests of the other side: taken, run and answered there. */
  readonly #incoming: IncomingRequests<C>;
  /** Created on first use: most server sessions never send a request. */
  #outgoingRequests: OutgoingRequests | undefined;
  /** May be shared by many peers (a server's sessions): what differs per peer is its `connection`. */
  readonly #options: PeerOptions<C>;
  readonly #maxBatchSize: number;
  #transport: Transport | undefined;
  #closed = false;
  /** -32700 answers sent so far (at most {@link MAX_PARSE_ERROR_ANSWERS}). */
  #parseErrorAnswers = 0;

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
    this.#incoming = new IncomingRequests(options, this.#handlers, this.#connection, this.#failure);
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
    return !this.#incoming.idle || (this.#outgoingRequests?.size ?? 0) > 0;
  }

  /**
   * Characters of the params of the other side's requests read and waiting to start, where they are
   * counted (`PeerOptions.admitWaiting`); 0 otherwise.
   */
  get waitingBytes(): number {
    return this.#incoming.waitingBytes;
  }

  /**
   * The options our request `id` was sent with (the very object given to `request`), while it is in
   * flight; undefined once it settled, or for an id never sent.
   */
  requestOptions(id: RequestId): RequestOptions | undefined {
    return this.#outgoingRequests?.optionsOf(id);
  }

  /**
   * Calls `listener` once our request `id` settles (answered, failed, timed out, cancelled, or the
   * connection closed), at once when it is not in flight; returns what stops listening.
   */
  whenSettled(id: RequestId, listener: () => void): () => void {
    const stop = this.#outgoingRequests?.onSettled(id, listener);
    if (stop) return stop;
    listener();
    return () => undefined;
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
    this.#incoming.connected(transport);
    transport.onmessage = (value, extra) => this.#receive(value, extra?.relatedRequestId);
    transport.onerror = (error) => this.#transportError(error);
    transport.onclose = () => this.#handleClose();
    transport.onend = () => this.#ended();
    if (transport.backlog) transport.ondrain = () => this.#incoming.resume();
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

  /**
   * Sends a notification. A log message or a progress notification sent while the transport holds as much
   * unread output as it may (`backlog.full`: a stdio client not reading stdout) is dropped: both are advisory,
   * and a sender that does not wait for each (a gateway relaying an upstream's flood) would otherwise queue
   * them without bound. Answers, requests and other notifications are never dropped.
   */
  async notify(method: string, params?: object, options?: SendOptions): Promise<void> {
    if (this.#closed || !this.#transport) return;
    if (this.#transport.backlog?.full && DROPPABLE.has(method)) return;
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
    return this.#incoming.drain(graceMs);
  }

  /** The other side sends nothing more: requests to it cannot be answered; ours finish, then we close. */
  #ended(): void {
    this.#outgoingRequests?.rejectAll(
      new ToolwireError(LocalErrorCode.ConnectionClosed, 'The other side closed its input'),
    );
    void this.drain(this.#options.endGraceMs ?? 0).then(() => this.close());
  }

  #handleClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Errors are built only when something waits for them (capturing a stack is costly, and a stateless
    // HTTP request closes a peer each time, usually with nothing pending).
    const outgoing = this.#outgoingRequests;
    if (outgoing && outgoing.size > 0) {
      outgoing.rejectAll(new ToolwireError(LocalErrorCode.ConnectionClosed, 'The connection closed'));
    } else outgoing?.close();
    this.#incoming.close();
    this.#options.closed?.(this.#connection);
    this.onclose?.();
  }

  #transportError(error: Error): void {
    if (error instanceof ProtocolError && error.code === ErrorCode.ParseError) {
      // Answered a few times (an id it may have had is unknown, so JSON-RPC's answer to a request): a peer
      // that keeps writing what is not JSON is not listening to them, and may not read them at all.
      if (this.#parseErrorAnswers < MAX_PARSE_ERROR_ANSWERS) {
        this.#parseErrorAnswers += 1;
        this.#incoming.send(errorResponse(this.#options.unknownErrorId?.(this.#connection), error.toJSON()));
      }
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
      this.#tooLarge(error);
    }
    this.#reportError(error);
  }

  /**
   * A message the transport discarded for its size (`MessageTooLargeDetails`): an answer it names fails its
   * request now, not at its timeout; a request it names is refused with its id; anything else is refused
   * with no id.
   */
  #tooLarge(error: ToolwireError): void {
    const { id, kind, maxMessageSize, receivedBytes } = tooLargeDetails(error.details);
    const limit = `the maximum message size${maxMessageSize === undefined ? '' : ` of ${maxMessageSize} bytes`}`;
    if (kind === 'answer' && id !== undefined) {
      const read = receivedBytes === undefined ? '' : ` (${receivedBytes} bytes read)`;
      this.#outgoingRequests?.reject(
        id,
        new ToolwireError(
          LocalErrorCode.MessageTooLarge,
          `The answer to request ${JSON.stringify(id)} exceeds ${limit}${read}; it was discarded`,
          { cause: error, details: error.details },
        ),
      );
      return;
    }
    const named = kind === 'request' ? id : undefined;
    this.#incoming.send(
      errorResponse(named ?? this.#options.unknownErrorId?.(this.#connection), {
        code: ErrorCode.InvalidRequest,
        message: `Invalid request: ${named === undefined ? error.message : `the request exceeds ${limit}; it was discarded`}`,
      }),
    );
  }

  /** A failed send, or a handler's unexpected error: one function for all (no closure per message). */
  readonly #failure = (error: unknown): void => {
    this.#reportError(asError(error));
  };

  /** An error no request can be told of: to the options' `error` hook, then `onerror`. */
  #reportError(error: Error): void {
    this.#options.error?.(error, this.#connection);
    this.onerror?.(error);
  }

  #receive(value: unknown, related: RequestId | undefined): void {
    if (Array.isArray(value)) {
      void this.#receiveBatch(value, related);
      return;
    }
    const pending = this.#dispatch(value, undefined, related);
    if (pending) void pending.then(this.#incoming.respond);
  }

  async #receiveBatch(values: unknown[], related: RequestId | undefined): Promise<void> {
    const reason =
      values.length === 0
        ? 'an empty batch'
        : !(this.#options.acceptBatch?.(this.#connection) ?? false)
          ? 'JSON-RPC batches are not supported by this revision'
          : values.length > this.#maxBatchSize
            ? `a batch of ${values.length} messages is over the limit of ${this.#maxBatchSize}`
            : undefined;
    if (reason !== undefined) {
      this.#incoming.send(
        errorResponse(this.#options.unknownErrorId?.(this.#connection), {
          code: ErrorCode.InvalidRequest,
          message: `Invalid request: ${reason}`,
        }),
      );
      return;
    }
    const incoming = this.#incoming;
    // The answers wait for the last of them: what they hold is counted, against `maxBatchAnswerBytes`.
    const batch = incoming.startBatch();
    const held = (response: JsonRpcResponse | undefined): JsonRpcResponse | undefined =>
      incoming.holdAnswer(batch, response);
    const responses = await Promise.all(
      values.map((value) => this.#dispatch(value, batch, related)?.then(held) ?? Promise.resolve(undefined)),
    );
    incoming.answerBatch(batch, responses);
  }

  /** Handles one message; resolves with the response to send, if any. */
  #dispatch(
    value: unknown,
    batch?: BatchAnswers,
    related?: RequestId,
  ): Promise<JsonRpcResponse | undefined> | undefined {
    const item = classify(value);
    // Nothing past here recurses into a message deeper than this (validation, digests, JSON.stringify).
    if (item.kind !== 'invalid' && isNestedDeeper(item.message, MAX_MESSAGE_DEPTH))
      return this.#tooDeep(item);
    switch (item.kind) {
      case 'response':
        if (!this.#outgoingRequests?.settle(item.message)) {
          const id = String(item.message.id);
          this.#reportError(
            withoutStack(() => new Error(`Received a response for an unknown request id ${id}`)),
          );
        }
        return undefined;
      case 'notification':
        this.#handleNotification(item.message);
        return undefined;
      case 'request':
        return this.#incoming.admit(item.message, batch, related);
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
      this.#incoming.cancelled(params);
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
}

/**
 * The -32700 answers one connection gets; later lines that are not JSON are only reported (`onerror`). A
 * peer writing plain text forever (a server command logging on stdout, `yes`) would otherwise get an
 * answer per line, queued without bound when it never reads them.
 */
export const MAX_PARSE_ERROR_ANSWERS = 8;

/** Notifications dropped rather than queued while the transport's backlog is full (see `Peer.notify`). */
const DROPPABLE = new Set(['notifications/message', 'notifications/progress']);

/** The `MessageTooLargeDetails` of a transport's error, each member kept only if it has its type. */
function tooLargeDetails(details: unknown): Partial<MessageTooLargeDetails> {
  if (typeof details !== 'object' || details === null) return {};
  const { id, kind, maxMessageSize, receivedBytes } = details as Record<string, unknown>;
  return {
    ...(typeof id === 'number' || typeof id === 'string' ? { id } : {}),
    ...(kind === 'answer' || kind === 'request' ? { kind } : {}),
    ...(typeof maxMessageSize === 'number' ? { maxMessageSize } : {}),
    ...(typeof receivedBytes === 'number' ? { receivedBytes } : {}),
  };
}
