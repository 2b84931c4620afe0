/**
 * The options every HTTP client transport shares (the URL, extra headers, a bearer token or an OAuth
 * client, a custom `fetch`), how the headers of one request are assembled from them, and how a request
 * is sent with them.
 * @module
 */
import { signalOf, type Cancellation } from '../../protocol/engine/cancellation.js';
import { cancellableFetch, nodeFetch } from './node-fetch.js';
import type { OAuthClient } from './oauth/oauth-client.js';
import type { OAuthRequest } from './oauth/oauth-client-options.js';

/** Extra request headers, or a function returning them (called before every request, e.g. for tokens). */
export type HeadersOption =
  Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/** A bearer token, or a function returning one (called before every request). */
export type BearerOption = string | (() => string | Promise<string>);

export interface HttpClientOptions {
  /** The MCP endpoint (Streamable HTTP) or the SSE endpoint (HTTP+SSE). */
  url: string | URL;
  /** Sent with every request (POST, GET and DELETE); the transport's own headers win on a clash. */
  headers?: HeadersOption;
  /**
   * An OAuth access token (or API key), sent as `Authorization: Bearer <token>` with every request; a
   * function is called before each request (refresh the token there). Wins over an `authorization` in
   * `headers`. Never put a token in the URL.
   */
  bearer?: BearerOption;
  /**
   * An OAuth client that authorizes every request: it gets tokens when the server asks for them (a 401),
   * refreshes them, steps up to more scopes (a 403 `insufficient_scope`), and signs DPoP proofs. Not
   * together with `bearer`.
   */
  oauth?: OAuthClient;
  /**
   * Used for every request instead of the default: a `fetch` on `node:http` (Node's own `fetch` keeps each
   * request's objects alive through the young-generation collections, a cost under load).
   */
  fetch?: typeof fetch;
  /**
   * The largest message read, in bytes: a JSON answer's body, or one SSE event (default 16 MiB, as large
   * as the client's default `maxResultBytes`). A larger answer is not read further: its request fails at
   * once with a `MESSAGE_TOO_LARGE` TransportError (`details: { id, maxMessageSize, receivedBytes }`), and
   * a larger event of the server's own stream is skipped and reported through `onerror`.
   */
  maxMessageSize?: number;
}

/** Refuses options that cannot be honoured together. */
export function checkHttpClientOptions(options: HttpClientOptions): void {
  if (options.bearer !== undefined && options.oauth !== undefined) {
    throw new TypeError('Give either bearer or oauth, not both');
  }
}

/**
 * Sends one request: through the OAuth client when there is one (`resource` is the server whose
 * credentials it carries; `interactive` whether a person may be asked to sign in for it), else as is.
 */
export function sendRequest(
  options: HttpClientOptions,
  send: typeof fetch,
  request: Omit<OAuthRequest, 'fetch'> & {
    /** Cancels it instead of `signal`: with `nodeFetch`, no `AbortSignal` is made for the request. */
    cancellation?: Cancellation | undefined;
  },
): Promise<Response> {
  const { url, method, headers, body, cancellation } = request;
  if (cancellation && send === nodeFetch && options.oauth === undefined) {
    return cancellableFetch(url, { method, headers, body }, cancellation);
  }
  const signal = request.signal ?? (cancellation ? signalOf(cancellation) : undefined);
  if (options.oauth !== undefined) return options.oauth.send({ ...request, signal, fetch: send });
  return send(url, { method, headers, body, signal });
}

/**
 * The headers of one request: the caller's, then the bearer token, then the transport's own (`undefined`
 * values are skipped).
 */
export async function requestHeaders(
  option: HeadersOption | undefined,
  own: Record<string, string | undefined>,
  bearer?: BearerOption,
): Promise<Headers> {
  const custom = typeof option === 'function' ? await option() : option;
  const headers = new Headers(custom);
  if (bearer !== undefined) {
    const token = typeof bearer === 'function' ? await bearer() : bearer;
    if (token) headers.set('authorization', `Bearer ${token}`);
  }
  for (const [name, value] of Object.entries(own)) {
    if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** The media type of a response, lower-cased, without parameters (`text/event-stream`). */
export function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Reads and drops a body we have no use for, so the connection can be reused. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
