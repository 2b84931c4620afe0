/**
 * Starting a new session after the server ended the old one (a 404 to a request that carried the session
 * id): the spec says the client MUST send a new InitializeRequest without a session id. The transport
 * replays the client's own initialize (with an id of its own, so the answer never reaches the client),
 * checks that the same revision is negotiated, and sends `notifications/initialized`; then the failed
 * message is sent again. Per-session server state (log level, subscriptions) does not carry over.
 * @module
 */
import { LocalErrorCode, errorMessage } from '../../protocol/errors.js';
import { isJsonObject, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { TransportError } from '../transport-error.js';
import { discardBody } from './http-client-options.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import { readAnswer } from './read-answer.js';

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
    message = await readAnswer(
      response,
      id,
      endpoint.maxMessageSize,
      'The answer to the new initialize request',
    );
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
