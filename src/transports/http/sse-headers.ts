/**
 * The headers of an SSE response: the event stream's media type, no caching or transformation by proxies,
 * no buffering (nginx), and a session's id when it has one.
 * @module
 */

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * The headers of a session's SSE responses: a literal, whose hidden class every session shares (a spread
 * into a new object made one per session, ≈300 bytes).
 */
export function sseHeaders(sessionId: string | undefined): Readonly<Record<string, string>> {
  if (sessionId === undefined) return SSE_HEADERS;
  return {
    'content-type': SSE_HEADERS['content-type']!,
    'cache-control': SSE_HEADERS['cache-control']!,
    'x-accel-buffering': SSE_HEADERS['x-accel-buffering']!,
    'mcp-session-id': sessionId,
  };
}
