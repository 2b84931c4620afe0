/**
 * Starting a new session after the server ended the old one (a 404 to a request that carried the session
 * id): the spec says the client MUST send a new InitializeRequest without a session id. The transport
 * replays the client's own initialize (with an id of its own, so the answer never reaches the client),
 * checks that the same revision is negotiated, and sends `notifications/initialized`; then the failed
 * message is sent again. Per-session server state (log level, subscriptions) does not carry over.
 * @module
 */
import { LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import { parsePeerJson } from '../../protocol/json-depth.js';
import { isJsonObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { TransportError } from '../transport-error.js';
import { readBoundedText } from './bounded-body.js';
import { discardBody, mediaType } from './http-client-options.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import { readEventStream } from './read-event-stream.js';
import { SseParser } from './sse-parser.js';

let counter = 0;

function fail(message: string, cause?: unknown): TransportError {
  return new TransportError(
    LocalErrorCode.ConnectionClosed,
    `Re-initializing the expired session failed: ${message}`,
    {
      cause,
      details: { sessionExpired: true },
    },
  );
}

/** Reads the response to request `id` from a JSON or SSE answer (of at most `limit` bytes, else fails). */
async function answer(response: Response, id: string, limit: number): Promise<unknown> {
  if (mediaType(response) === 'application/json') {
    const text = await readBoundedText(response, limit, 'The answer to the new initialize request');
    const body: unknown = parsePeerJson(text);
    return (Array.isArray(body) ? body : [body]).find((m) => isJsonObject(m) && m.id === id);
  }
  if (mediaType(response) !== 'text/event-stream' || !response.body) return undefined;
  let found: unknown;
  await readEventStream(response.body, new SseParser({ maxEventSize: limit }), (event) => {
    if (event.tooLarge)
      throw fail('an event of the answer to the new initialize request is over maxMessageSize');
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

export async function reinitializeSession(
  endpoint: McpEndpoint,
  initialize: JsonRpcRequest,
  signal: AbortSignal,
): Promise<void> {
  const negotiated = endpoint.protocolVersion;
  endpoint.sessionId = undefined;
  endpoint.protocolVersion = undefined;
  const id = `toolwire-reinitialize-${++counter}`;
  let message: unknown;
  try {
    const response = await endpoint.request('POST', signal, {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      body: JSON.stringify({ ...initialize, id }),
    });
    if (!response.ok) {
      await discardBody(response);
      throw fail(`the server answered HTTP ${response.status}`);
    }
    endpoint.learnSession(response);
    message = await answer(response, id, endpoint.maxMessageSize);
  } catch (error) {
    throw error instanceof TransportError ? error : fail(errorMessage(error), error);
  } finally {
    endpoint.protocolVersion = negotiated;
  }
  const result = isJsonObject(message) ? message.result : undefined;
  if (!isJsonObject(result)) throw fail('the server did not answer the initialize request');
  if (result.protocolVersion !== negotiated) {
    throw fail(`the server now speaks ${String(result.protocolVersion)}, not ${String(negotiated)}`);
  }
  const ack = await endpoint.request('POST', signal, {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await discardBody(ack);
}
