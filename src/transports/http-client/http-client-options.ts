/**
 * The options every HTTP client transport shares (the URL, extra headers, a custom `fetch`), and how
 * the headers of one request are assembled from them.
 * @module
 */

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
  /** Used for every request instead of the global `fetch`. */
  fetch?: typeof fetch;
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
