/**
 * The response to one request the transport sends of its own accord (a new session's `initialize`, the
 * `tools/list` after a HeaderMismatch), read from a JSON body or an SSE stream, at most `maxMessageSize`
 * bytes a message. Its answer never reaches the client.
 * @module
 */
import { parsePeerJson } from '../../protocol/json-depth.js';
import { isJsonObject } from '../../protocol/jsonrpc.js';
import { readBoundedText } from './bounded-body.js';
import { mediaType } from './http-client-options.js';
import { readEventStream } from './read-event-stream.js';
import { SseParser } from './sse-parser.js';

/**
 * The message answering request `id` in `response`, or undefined when the answer holds none. Rejects when
 * the body or an event of it is over `limit` bytes (`what` names the answer), or is not JSON.
 */
export async function readAnswer(
  response: Response,
  id: string,
  limit: number,
  what: string,
): Promise<unknown> {
  if (mediaType(response) === 'application/json') {
    const body: unknown = parsePeerJson(await readBoundedText(response, limit, what));
    return (Array.isArray(body) ? body : [body]).find((m) => isJsonObject(m) && m.id === id);
  }
  if (mediaType(response) !== 'text/event-stream' || !response.body) return undefined;
  let found: unknown;
  await readEventStream(response.body, new SseParser({ maxEventSize: limit }), (event) => {
    if (event.tooLarge) throw new Error(`an event of ${what.toLowerCase()} is over maxMessageSize`);
    if (event.data === '') return true;
    const message: unknown = parsePeerJson(event.data);
    if (isJsonObject(message) && message.id === id) {
      found = message;
      return false;
    }
    return true;
  });
  return found;
}
