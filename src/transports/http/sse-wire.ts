/**
 * What an SSE response looks like on the wire: its headers (the event stream's media type, no caching or
 * transformation by proxies, no buffering by nginx, and a session's id when it has one), and the text of
 * one event (its fields, each on a line of its own, and a blank line that ends it).
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

export interface SseEventFields {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** Formats one SSE event (every data line prefixed, as the SSE standard requires). */
export function formatSseEvent(fields: SseEventFields): string {
  let out = '';
  if (fields.event !== undefined) out += `event: ${fields.event}\n`;
  if (fields.id !== undefined) out += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  if (fields.data !== undefined) {
    // A JSON-RPC message (JSON text has no raw line break) is one data line: no split.
    if (fields.data.indexOf('\n') === -1) out += `data: ${fields.data}\n`;
    else for (const line of fields.data.split('\n')) out += `data: ${line}\n`;
  } else {
    out += 'data: \n';
  }
  return `${out}\n`;
}
