/**
 * The client end of the Streamable HTTP transport (MCP 2025-03-26 … 2026-07-28): every message is a
 * POST to the MCP endpoint, answered with 202, a JSON body, or an SSE stream. In the handshake era a
 * GET stream carries the server's own requests and notifications and broken streams resume with
 * `Last-Event-ID`; a stateless-era request (its `_meta` names the protocol version) is an exchange of
 * its own, with the request metadata headers (see `stateless-http-requests.ts`).
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'my-app', version: '1.0.0' });
 * await client.connect(new StreamableHttpClientTransport({ url: 'http://127.0.0.1:3000/mcp' }));
 * ```
 * @module
 */
import type { Cancellation } from '../../protocol/engine/cancellation.js';
import { LocalErrorCode, asError, errorMessage } from '../../protocol/errors.js';
import { stringifyJson } from '../../protocol/json-text.js';
import {
  isJsonObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from '../../protocol/jsonrpc.js';
import type { MessageExtra, OutputBacklog, SendOptions, Transport } from '../../protocol/transport.js';
import { TransportError } from '../transport-error.js';
import { readBoundedText } from './bounded-body.js';
import { discardBody, mediaType } from './http-client-options.js';
import { httpStatusError, isAuthStatus, jsonRpcErrorWithId, readErrorBody } from './http-failure.js';
import { McpEndpoint } from './mcp-endpoint.js';
import { ReadGate } from './read-gate.js';
import { StatelessHttpRequests, isStatelessRequest } from './stateless-http-requests.js';
import { ReconnectPolicy } from './reconnect-policy.js';
import { reinitializeSession } from './reinitialize-session.js';
import { SessionStreams } from './session-streams.js';
import type { StreamableHttpClientTransportOptions } from './streamable-http-client-transport-options.js';
import { WaitingPosts, type NoticePost } from './waiting-posts.js';

export type { StreamableHttpClientTransportOptions } from './streamable-http-client-transport-options.js';

/**
 * A Streamable HTTP client transport.
 *
 * - Session: the `Mcp-Session-Id` the server assigns with the InitializeResult is sent on every later
 *   request, and `close()` ends the session with a DELETE (a 405 answer is fine).
 * - Session expiry: a 404 to a request that carried the session id means the server ended the session.
 *   The transport starts a new one (it replays the client's initialize without a session id, checks the
 *   same revision is negotiated, sends `notifications/initialized`) and sends the message again. If that
 *   fails, or the retried message gets a 404 too, it reports a `TransportError` `CONNECTION_CLOSED` with
 *   `details: { status: 404, sessionExpired: true, body }` through `onerror` and closes (`onclose`). A 404
 *   to a GET (the server message stream, or a resumption with `Last-Event-ID`) starts a new session the
 *   same way; the requests whose responses the resumed stream owed fail, as a stream that is lost.
 * - Resumability: when a POST's SSE stream ends or breaks before the response, the transport waits the
 *   server's `retry` (else `reconnect.initialDelayMs`), then GETs the endpoint with `Last-Event-ID`, and
 *   keeps doing so (backing off on failures) until the response arrives. If the stream cannot be resumed
 *   (no event id, GET refused, retries exhausted), `onerror` gets a `CONNECTION_CLOSED` TransportError and
 *   each pending request is answered locally with a JSON-RPC internal error, so its caller is not left
 *   waiting for a timeout.
 * - Held answers: when the client gives up on a request (its timeout, its caller's abort: the engine sends
 *   `notifications/cancelled`), the POST that carried it is dropped (its response, its stream, a resumption)
 *   once it carries nothing else awaited; a POST's stream still open a second after its last response is
 *   dropped too. A POST of no request (notifications, answers to the server's requests) the server has not
 *   accepted within 30 s is dropped, and while 64 wait, the next ones wait in line for them, in order (at
 *   most 1,024 and 16 MiB of JSON: past it an answer is sent as a -32603 error answer saying so, and its
 *   `send` rejects with `SEND_FAILED`; a notification is refused at once). So a server that never answers
 *   costs no connection per call, and a bounded amount of memory.
 * - Once `notifications/initialized` is sent, a GET stream listens for the server's own messages (a 405
 *   means the server has none) and is reopened with `Last-Event-ID` when it ends. Sending
 *   `notifications/initialized` resolves once that GET is answered (2 s at most), so the handshake ends
 *   with the stream open and a server message sent right after the next request is not lost.
 * - Stateless era (2026-07-28): a request whose `_meta` names the protocol version is POSTed with
 *   `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers of the tool's
 *   `x-mcp-header` marks (values that are not header-safe Base64-encoded), and without a session id. A
 *   stateless error status (400 with -32020/-32022, 404 with -32601) is delivered as the request's error
 *   response. Cancelling it (`notifications/cancelled` from the engine) closes its stream instead of
 *   being POSTed. Without an `initialize` there is no session, no GET stream and no DELETE.
 */
export class StreamableHttpClientTransport implements Transport {
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Set by the engine: one of the POSTs of answers waiting was accepted (see {@link backlog}). */
  ondrain?: () => void;
  /**
   * The POSTs of notifications and answers waiting for the server to accept them: while as many wait as
   * may be sent at once (64), the engine starts none of the server's requests, and no response body is
   * read (see {@link holdInput}: a stateless-era request's stream neither), until one of them is accepted
   * (a server may accept none until it holds all 64). What the server sends meanwhile waits
   * in the connection, so a fast server loses no answer and a hostile one cannot fill the client.
   */
  readonly backlog: OutputBacklog;

  readonly #endpoint: McpEndpoint;
  readonly #abort = new AbortController();
  #state: 'idle' | 'open' | 'closed' = 'idle';
  #initializeId: RequestId | undefined;
  /** The client's initialize request, replayed to start a new session when the server ended ours. */
  #initialize: JsonRpcRequest | undefined;
  #reinitializing: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  readonly #streams: SessionStreams;
  readonly #stateless: StatelessHttpRequests;
  /** POSTs of no request (notifications, answers) waiting for the server to accept them. */
  readonly #notices = new WaitingPosts(() => this.ondrain?.());
  /** Shut while the engine holds the server's requests it has not started: no body is read meanwhile. */
  readonly #gate = new ReadGate();

  constructor(options: StreamableHttpClientTransportOptions) {
    this.#endpoint = new McpEndpoint(options);
    this.backlog = this.#notices.backlog;
    this.#stateless = new StatelessHttpRequests({
      endpoint: this.#endpoint,
      signal: this.#abort.signal,
      deliver: (message) => this.#deliver(message),
      report: (error) => this.onerror?.(error),
      toolSchemas: options.toolSchemas,
      gate: this.#gate,
    });
    this.#streams = new SessionStreams({
      endpoint: this.#endpoint,
      signal: this.#abort.signal,
      policy: new ReconnectPolicy(options.reconnect),
      gate: this.#gate,
      open: () => this.#state === 'open',
      get: (headers, cancel) => this.#request('GET', headers, cancel),
      renewable: () => this.#initialize !== undefined,
      renew: (ended) => {
        // A send that noticed first started the new session already.
        if (this.#endpoint.sessionId === ended) this.#newSession().catch(() => undefined);
      },
      expire: (what, response, body) => this.#expire(what, response, body),
      deliver: (message, related) => this.#deliver(message, related),
      answer: (message) => this.onmessage?.(message),
      report: (error) => this.onerror?.(error),
    });
  }

  /** Called by the engine while it holds the server's requests it has not started: bodies are not read. */
  holdInput(hold: boolean): void {
    this.#gate.hold(hold && this.#state === 'open');
  }

  /** The session id the server assigned, once it has. */
  get sessionId(): string | undefined {
    return this.#endpoint.sessionId;
  }

  /** The `MCP-Protocol-Version` sent with requests (the negotiated version after initialize). */
  get protocolVersion(): string | undefined {
    return this.#endpoint.protocolVersion;
  }

  async start(): Promise<void> {
    if (this.#state !== 'idle') {
      throw new TransportError(LocalErrorCode.AlreadyConnected, 'The HTTP transport was already started');
    }
    this.#state = 'open';
  }

  /** POSTs one message (or a 2025-03-26 batch). Resolves once the server accepted it. */
  async send(message: JsonRpcMessage | JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    if (isStatelessRequest(message)) {
      if (this.#state !== 'open') throw this.#notOpen();
      return this.#stateless.send(message);
    }
    if (!Array.isArray(message) && 'method' in message && message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      if (this.#closesStream(requestId)) return;
      // Told to the server, and its POST dropped: the server need not end it (nor answer) any more.
      if (typeof requestId === 'string' || typeof requestId === 'number') this.#streams.giveUp(requestId);
    }
    return this.#send(message, true);
  }

  /**
   * Cancelling a stateless-era request closes its stream; nothing is POSTed. Before any `initialize`
   * every request is of that era, so a cancellation of one already answered is dropped too.
   */
  #closesStream(requestId: unknown): boolean {
    const ours =
      (typeof requestId === 'string' || typeof requestId === 'number') && this.#stateless.cancel(requestId);
    return ours || this.#initializeId === undefined;
  }

  async #send(message: JsonRpcMessage | JsonRpcMessage[], mayReinitialize: boolean): Promise<void> {
    if (this.#state !== 'open') throw this.#notOpen();
    if (this.#reinitializing) await this.#reinitializing.catch(() => undefined);
    if (this.#state !== 'open') throw this.#notOpen();
    const messages = Array.isArray(message) ? message : [message];
    const requestIds: RequestId[] = [];
    for (const item of messages) {
      if (!('method' in item) || !('id' in item)) continue;
      requestIds.push(item.id);
      if (item.method === 'initialize') {
        this.#initializeId = item.id;
        this.#initialize = item;
      }
    }
    // What answers the requests: dropped when the client gives up on them, or the transport closes. A POST
    // of no request (notifications, answers) is dropped if not accepted in time; while 64 wait, the next
    // ones wait in line for them (see `WaitingPosts.openNotice`).
    let notice: NoticePost | undefined;
    if (requestIds.length === 0) {
      notice = await this.#notices.openNotice(this.#endpoint.url, message).catch((error: unknown) => {
        throw this.#state === 'open' ? error : this.#notOpen();
      });
    }
    const withSession = this.#endpoint.sessionId !== undefined;
    const post = this.#streams.track(requestIds);
    let followed = false;
    try {
      const response = await this.#request(
        'POST',
        {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          body: notice?.body ?? stringifyJson(message),
        },
        notice?.post.cancellation ?? post.cancellation,
      );
      this.#endpoint.learnSession(response);
      if (
        response.status === 404 &&
        withSession &&
        mayReinitialize &&
        this.#initialize &&
        requestIds[0] !== this.#initializeId
      ) {
        await discardBody(response);
        // Its slot is free for the retry (which takes one of its own) while the new session starts.
        if (notice) this.#notices.done(notice.post);
        await this.#newSession();
        return await this.#send(message, false);
      }
      if (!response.ok) return await this.#postFailed(response, withSession);
      const type = mediaType(response);
      if (notice || response.status === 202) {
        await discardBody(response);
        if (notice?.dropped) throw notice.dropped;
        // The GET stream is open (or refused) before the handshake ends: nothing the server sends on it
        // right after the client's next request is lost.
        if (messages.some((item) => 'method' in item && item.method === 'notifications/initialized')) {
          await this.#streams.listen();
        }
      } else if (type === 'text/event-stream' && response.body) {
        followed = true;
        void post.follow(response).finally(() => this.#streams.release(post));
      } else if (type === 'application/json') {
        await this.#gate.opened();
        this.#streams.deliver(await this.#readText(response, requestIds));
      } else {
        await discardBody(response);
        throw new TransportError(
          LocalErrorCode.SendFailed,
          `POST ${this.#endpoint.url.href} answered HTTP ${response.status} with unexpected content type "${type}"`,
          { details: { status: response.status } },
        );
      }
    } finally {
      if (notice) this.#notices.done(notice.post);
      if (!followed) this.#streams.release(post);
    }
  }

  /** Aborts every stream, ends the session with a DELETE, and fires `onclose` once. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown(true);
    return this.#closing;
  }

  /** The server ended the session: start a new one (once, however many sends noticed). */
  async #newSession(): Promise<void> {
    const initialize = this.#initialize;
    if (!initialize) return;
    this.#reinitializing ??= reinitializeSession(this.#endpoint, initialize, this.#abort.signal).then(
      () => {
        this.#reinitializing = undefined;
        this.#streams.relisten();
      },
      (error: unknown) => {
        this.#reinitializing = undefined;
        if (this.#state === 'open') {
          this.onerror?.(asError(error));
          this.#closing ??= this.#shutdown(false);
        }
        throw error;
      },
    );
    await this.#reinitializing;
  }

  async #postFailed(response: Response, withSession: boolean): Promise<void> {
    const body = await readErrorBody(response);
    if (response.status === 404 && withSession)
      throw this.#expire(`POST ${this.#endpoint.url.href}`, response, body);
    // A 401/403 is the credentials' failure, whatever the body says: the caller gets the challenge.
    const rpcError = isAuthStatus(response.status) ? undefined : jsonRpcErrorWithId(body);
    if (rpcError) return this.#deliver(rpcError);
    throw httpStatusError(`POST ${this.#endpoint.url.href}`, response, body);
  }

  /** The server ended the session: report it and close (without a DELETE). */
  #expire(what: string, response: Response, body: string): TransportError {
    const error = httpStatusError(
      `${what} (session ${this.#endpoint.sessionId ?? '?'} expired; connect again for a new session)`,
      response,
      body,
      LocalErrorCode.ConnectionClosed,
      { sessionExpired: true },
    );
    if (this.#state === 'open') {
      this.onerror?.(error);
      this.#closing ??= this.#shutdown(false);
    }
    return error;
  }

  /** One message for the engine; `related`: the request whose POST stream brought it. */
  #deliver(message: unknown, related?: RequestId): void {
    if (this.#state !== 'open') return;
    if (isJsonObject(message) && ('result' in message || 'error' in message)) {
      const id = message.id as RequestId;
      this.#streams.settle(id);
      const result = message.result;
      if (id === this.#initializeId && isJsonObject(result) && typeof result.protocolVersion === 'string') {
        this.#endpoint.protocolVersion = result.protocolVersion;
      }
    }
    this.onmessage?.(message, related === undefined ? undefined : { relatedRequestId: related });
  }

  /** A JSON answer's body, at most `maxMessageSize` bytes (else its request fails with MESSAGE_TOO_LARGE). */
  async #readText(response: Response, requestIds: RequestId[]): Promise<string> {
    const limit = this.#endpoint.maxMessageSize;
    const what = `The answer to request ${requestIds.join(', ')} (POST ${this.#endpoint.url.href})`;
    try {
      return await readBoundedText(
        response,
        limit,
        what,
        requestIds.length === 1 ? requestIds[0] : undefined,
      );
    } catch (error) {
      if (error instanceof TransportError && error.code === LocalErrorCode.MessageTooLarge) throw error;
      throw this.#state === 'open'
        ? new TransportError(
            LocalErrorCode.SendFailed,
            `Reading the response failed: ${errorMessage(error)}`,
            { cause: error },
          )
        : this.#notOpen();
    }
  }

  /** One request to the endpoint, aborted when the transport closes (or by `cancel`, which is then). */
  async #request(
    method: 'POST' | 'GET',
    own: Record<string, string | undefined> & { body?: string },
    cancel?: Cancellation,
  ): Promise<Response> {
    try {
      return await this.#endpoint.request(method, cancel ?? this.#abort.signal, own);
    } catch (error) {
      throw this.#state === 'open' ? error : this.#notOpen();
    }
  }

  async #shutdown(endSession: boolean): Promise<void> {
    this.#state = 'closed';
    this.#abort.abort();
    this.#gate.hold(false);
    this.#streams.clear();
    this.#notices.clear(this.#abort.signal.reason);
    const failure = endSession ? await this.#endpoint.endSession() : undefined;
    if (failure) this.onerror?.(failure);
    this.onclose?.();
  }

  #notOpen(): TransportError {
    return this.#state === 'idle'
      ? new TransportError(LocalErrorCode.NotConnected, 'The HTTP transport is not started')
      : new TransportError(LocalErrorCode.ConnectionClosed, 'The HTTP transport is closed');
  }
}
