/**
 * Reading a response body with a bound: a JSON answer up to `maxMessageSize`, an error body up to what is
 * worth quoting. A body over its bound is not read further (its connection is dropped), so a server that
 * answers with gigabytes costs the client no more than the bound.
 * @module
 */
import type { RequestId } from '../../protocol/jsonrpc.js';
import type { MessageTooLargeDetails } from '../../protocol/transport.js';
import { discardBody } from './http-client-options.js';
import { tooLargeError } from './message-limit.js';
import { NodeResponse, type BodyPart } from './node-response.js';

/** What an error body is read of at most: enough to quote, and to find a JSON-RPC error in. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** At most `limit` bytes of `response`'s body (see {@link BodyPart}). */
export async function readUpTo(response: Response, limit: number): Promise<BodyPart> {
  const direct = response instanceof NodeResponse ? await response.readUpTo(limit) : undefined;
  if (direct) return direct;
  const body = response.body;
  if (!body) return { bytes: new Uint8Array(0), complete: true, received: 0 };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > limit) {
        await reader.cancel().catch(() => undefined);
        return { bytes: Buffer.concat(chunks), complete: false, received };
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), complete: true, received };
}

/**
 * The body of `response` (`what`: how the error names it, e.g. "The answer to request 3") as text, when
 * it is at most `limit` bytes; else a `MESSAGE_TOO_LARGE` TransportError (`details.id`: the request it
 * answered, when given), thrown before reading when its `Content-Length` says so.
 */
export async function readBoundedText(
  response: Response,
  limit: number,
  what: string,
  id?: RequestId,
): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '');
  const details = (receivedBytes: number): MessageTooLargeDetails =>
    id === undefined
      ? { maxMessageSize: limit, receivedBytes }
      : { maxMessageSize: limit, receivedBytes, id, kind: 'answer' };
  if (Number.isFinite(declared) && declared > limit) {
    await discardBody(response);
    throw tooLargeError(`${what} (${declared} bytes)`, details(0));
  }
  const part = await readUpTo(response, limit);
  if (!part.complete) throw tooLargeError(what, details(part.received));
  return new TextDecoder().decode(part.bytes);
}
