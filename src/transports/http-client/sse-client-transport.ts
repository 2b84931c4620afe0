/**
 * The client end of the legacy HTTP+SSE transport (MCP 2024-11-05, deprecated since 2025-03-26):
 * a GET opens an SSE stream whose first event, `endpoint`, names the URL to POST messages to; the
 * server's messages arrive as `message` events on the stream.
 * @module
 */
import { ErrorCode, LocalErrorCode, ProtocolError, errorMessage } from '../../protocol/errors.js';
import { messageNaming, parsePeerJson } from '../../protocol/json-depth.js';
import { stringifyJson } from '../../protocol/json-text.js';
import type { Cancellation } from '../../protocol/engine/cancellation.js';
import type { JsonRpcMessage, RequestId } from '../../protocol/jsonrpc.js';
import type { OutputBacklog, SendOptions, Transport } from '../../protocol/transport.js';
import { TransportError } from '../transport-error.js';
import {
  checkHttpClientOptions,
  discardBody,
  mediaType,
  requestHeaders,
  sendRequest,
  type HttpClientOptions,
} from './http-client-options.js';
import { httpStatusError, readErrorBody } from './http-failure.js';
import { describeFetchError } from './mcp-endpoint.js';
import { eventTooLargeError, maxMessageSizeOption } from './message-limit.js';
import { nodeFetch } from './node-fetch.js';
import { OAuthError } from './oauth/oauth-error.js';
import { readEventStream } from './read-event-stream.js';
import { ReadGate } from './read-gate.js';
import { SseParser, type SseEvent } from './sse-parser.js';
import { WaitingPosts } from './waiting-posts.js';

export interface SseClientTransportOptions extends HttpClientOptions {
  /**
   * How long `start()` waits for the `endpoint` event, in ms, from the GET on (its response headers
   * included). Default 30000.
   */
  endpointTimeoutMs?: number;
}

const DEFAULT_ENDPOINT_TIMEOUT_MS = 30_000;

/**
 * A legacy HTTP+SSE client transport. `start()` resolves once the `endpoint` event arrived; an
 * endpoint on another origin than the SSE URL is refused (`start()` rejects). When the stream ends,
 * `onerror` gets a `CONNECTION_CLOSED` TransportError and the transport closes: this transport has no
 * resumption. A POST the server does not accept is dropped once the client gave up on the requests it
 * carries (see `WaitingPosts`); one of notifications or answers after 30 s, and while 64 of those wait the
 * next ones wait in line for them (bounded: an answer past the bound is sent as an error answer instead).
 * While as many of those wait as may be sent at once, the stream is not read (see {@link backlog}).
 */
export class SseClientTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Set by the engine: one of the POSTs of answers waiting was accepted (see {@link backlog}). */
  ondrain?: () => void;
  /**
   * The POSTs of notifications and answers waiting for the server to accept them: while as many wait as
   * may be sent at once (64), the engine starts none of the server's requests and the SSE stream is not
   * read (see {@link holdInput}) until one of them is accepted.
   */
  readonly backlog: OutputBacklog;
  readonly sessionId: string | undefined = undefined;
  /** The largest event read, in bytes (`maxMessageSize`). */
  readonly maxMessageSize: number;

  readonly #url: URL;
  readonly #options: SseClientTransportOptions;
  readonly #fetch: typeof fetch;
  readonly #abort = new AbortController();
  #state: 'idle' | 'starting' | 'open' | 'closed' = 'idle';
  #endpoint: URL | undefined;
  #closeFired = false;
  /** The POSTs the server has not answered yet. */
  readonly #posts = new WaitingPosts(() => this.ondrain?.());
  /** Shut while the engine holds the server's requests it has not started: the stream is not read. */
  readonly #gate = new ReadGate();

  constructor(options: SseClientTransportOptions) {
    this.backlog = this.#posts.backlog;
    checkHttpClientOptions(options);
    this.#url = new URL(options.url);
    this.#options = options;
    this.#fetch = options.fetch ?? nodeFetch;
    this.maxMessageSize = maxMessageSizeOption(options.maxMessageSize);
  }

  /** Called by the engine while it holds the server's requests it has not started: the stream waits. */
  holdInput(hold: boolean): void {
    this.#gate.hold(hold && this.#state !== 'closed');
  }

  /** The URL messages are POSTed to, once the server named it. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /** Opens the SSE stream and waits for the `endpoint` event. */
  async start(): Promise<void> {
    if (this.#state !== 'idle') {
      throw new TransportError(LocalErrorCode.AlreadyConnected, 'The SSE transport was already started');
    }
    this.#state = 'starting';
    // One deadline for all of it: the response headers, the stream's first bytes, the endpoint event.
    const timeoutMs = this.#options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.#lost(`no "endpoint" event within ${timeoutMs} ms`)), timeoutMs);
    });
    const opening = this.#open();
    try {
      this.#endpoint = await Promise.race([opening, expired]);
      this.#state = 'open';
    } catch (error) {
      opening.catch(() => undefined); // aborted below, if still under way
      this.#state = 'closed';
      this.#abort.abort();
      this.#gate.hold(false);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    if (this.#state !== 'open' || !this.#endpoint) {
      throw this.#state === 'closed'
        ? new TransportError(LocalErrorCode.ConnectionClosed, 'The SSE transport is closed')
        : new TransportError(LocalErrorCode.NotConnected, 'The SSE transport is not started');
    }
    const endpoint = this.#endpoint;
    const messages = Array.isArray(message) ? message : [message];
    const requestIds: RequestId[] = [];
    for (const item of messages) {
      if ('method' in item && 'id' in item) requestIds.push(item.id);
      else if ('method' in item && item.method === 'notifications/cancelled') {
        const id = item.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') this.#posts.giveUp(id);
      }
    }
    // A POST of no request waits in line while as many as may wait for the server to accept them.
    const { post, body, dropped } =
      requestIds.length > 0
        ? { post: this.#posts.open(requestIds), body: stringifyJson(message), dropped: undefined }
        : await this.#posts.openNotice(endpoint, message).catch((error: unknown) => {
            throw this.#state === 'open'
              ? error
              : new TransportError(LocalErrorCode.ConnectionClosed, 'The SSE transport is closed');
          });
    try {
      const response = await this.#request(
        endpoint,
        'POST',
        { accept: 'application/json, text/event-stream', 'content-type': 'application/json', body },
        post.cancellation,
      );
      if (!response.ok) {
        const errorBody = await readErrorBody(response);
        throw httpStatusError(`POST ${endpoint.href}`, response, errorBody);
      }
      await discardBody(response); // responses come on the SSE stream
      if (dropped) throw dropped;
    } finally {
      this.#posts.done(post);
    }
  }

  async close(): Promise<void> {
    this.#state = 'closed';
    this.#abort.abort();
    this.#gate.hold(false);
    this.#posts.clear(this.#abort.signal.reason);
    this.#fireClose();
  }

  /** GETs the SSE stream; resolves with the endpoint its first event names. */
  async #open(): Promise<URL> {
    const response = await this.#request(this.#url, 'GET', { accept: 'text/event-stream' });
    if (!response.ok || mediaType(response) !== 'text/event-stream' || !response.body) {
      const body = response.ok ? '' : await readErrorBody(response);
      if (response.ok) await discardBody(response);
      throw httpStatusError(
        `GET ${this.#url.href} (HTTP+SSE)`,
        response,
        body,
        LocalErrorCode.ConnectionClosed,
      );
    }
    return this.#awaitEndpoint(response.body);
  }

  /**
   * Reads the stream in the background; resolves with the endpoint, or rejects if the stream ends (or
   * fails) first. `start()` bounds the wait.
   */
  #awaitEndpoint(body: ReadableStream<Uint8Array>): Promise<URL> {
    return new Promise<URL>((resolve, reject) => {
      let settled = false;
      const settle = (error: Error | undefined, endpoint?: URL): void => {
        if (settled) return;
        settled = true;
        if (endpoint) resolve(endpoint);
        else reject(error ?? new Error('unreachable'));
      };
      const onEvent = (event: SseEvent): boolean => {
        if (!settled && event.type === 'endpoint') {
          try {
            settle(undefined, this.#endpointUrl(event.data));
          } catch (error) {
            settle(error as Error);
            return false;
          }
        } else if (event.tooLarge) {
          this.onerror?.(this.#tooLarge(event.head ?? ''));
        } else if (settled && event.type === 'message') {
          this.#deliver(event.data);
        }
        return this.#state !== 'closed';
      };
      const parser = new SseParser({ maxEventSize: this.maxMessageSize });
      readEventStream(body, parser, onEvent, this.#gate).then(
        () => this.#ended(undefined, settle),
        (error: unknown) => this.#ended(error, settle),
      );
    });
  }

  /**
   * An event over `maxMessageSize`, skipped: reported with the request it answered when the start of its
   * data names one (the engine fails that request at once), else as is.
   */
  #tooLarge(head: string): TransportError {
    const { id, kind } = messageNaming(head);
    return kind === 'answer' && id !== undefined
      ? eventTooLargeError(`The answer to request ${JSON.stringify(id)}`, this.maxMessageSize, id)
      : eventTooLargeError('An event of the SSE stream', this.maxMessageSize);
  }

  #endpointUrl(data: string): URL {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.#url);
    } catch (error) {
      throw this.#lost(`the "endpoint" event holds no valid URL (${JSON.stringify(data)})`, error);
    }
    if (endpoint.origin !== this.#url.origin) {
      throw this.#lost(
        `the "endpoint" event names ${endpoint.origin}, another origin than ${this.#url.origin}; refused`,
      );
    }
    return endpoint;
  }

  #ended(error: unknown, settle: (error: Error | undefined) => void): void {
    if (this.#state === 'closed') return;
    const lost = this.#lost(
      error === undefined ? 'the server ended the SSE stream' : describeFetchError(error),
      error,
    );
    if (this.#state === 'starting') return settle(lost);
    this.#state = 'closed';
    this.#gate.hold(false);
    this.#posts.clear(lost);
    this.onerror?.(lost);
    this.#fireClose();
  }

  #deliver(data: string): void {
    let value: unknown;
    try {
      value = parsePeerJson(data);
    } catch (error) {
      this.onerror?.(
        new ProtocolError(ErrorCode.ParseError, `Parse error: ${errorMessage(error)}`, undefined, {
          cause: error,
        }),
      );
      return;
    }
    this.onmessage?.(value);
  }

  async #request(
    url: URL,
    method: 'GET' | 'POST',
    own: Record<string, string> & { body?: string },
    cancellation?: Cancellation,
  ): Promise<Response> {
    const { body, ...names } = own;
    try {
      const headers = await requestHeaders(this.#options.headers, names, this.#options.bearer);
      return await sendRequest(this.#options, this.#fetch, {
        resource: this.#url,
        url,
        method,
        headers,
        body,
        signal: cancellation ? undefined : this.#abort.signal,
        cancellation,
      });
    } catch (error) {
      if (error instanceof OAuthError) throw error;
      if (this.#state === 'closed') {
        throw new TransportError(LocalErrorCode.ConnectionClosed, 'The SSE transport is closed');
      }
      throw new TransportError(
        LocalErrorCode.SendFailed,
        `${method} ${url.href} failed: ${describeFetchError(error)}`,
        { cause: error },
      );
    }
  }

  #lost(reason: string, cause?: unknown): TransportError {
    return new TransportError(LocalErrorCode.ConnectionClosed, `HTTP+SSE ${this.#url.href}: ${reason}`, {
      cause,
    });
  }

  #fireClose(): void {
    if (this.#closeFired) return;
    this.#closeFired = true;
    this.onclose?.();
  }
}
