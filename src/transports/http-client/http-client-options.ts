/**
 * The options every HTTP client transport shares (the URL, extra headers, a custom `fetch`), and how
 * the headers of one request are assembled from them.
 * @module
 */

/** Extra request headers, or a function returning them (called before every request, e.g. for tokens). */
export type HeadersOption =
  Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

export interface HttpClientOptions {
  /** The MCP endpoint (Streamable HTTP) or the SSE endpoint (HTTP+SSE). */
  url: string | URL;
  /** Sent with every request (POST, GET and DELETE); the transport's own headers win on a clash. */
  headers?: HeadersOption;
  /** Used for every request instead of the global `fetch`. */
  fetch?: typeof fetch;
}

/** The headers of one request: the caller's, then the transport's own (`undefined` values are skipped). */
export async function requestHeaders(
  option: HeadersOption | undefined,
  own: Record<string, string | undefined>,
): Promise<Headers> {
  const custom = typeof option === 'function' ? await option() : option;
  const headers = new Headers(custom);
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
