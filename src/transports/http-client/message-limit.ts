/**
 * How large a message an HTTP client transport reads: a JSON body, or one SSE event. Without a bound, a
 * server (or anything between) that answers with gigabytes made the client hold them all: 200 MB of one
 * SSE event took 900 MB and a minute of CPU before the request timed out.
 * @module
 */
import { LocalErrorCode } from '../../protocol/errors.js';
import type { RequestId } from '../../protocol/jsonrpc.js';
import type { MessageTooLargeDetails } from '../../protocol/transport.js';
import { TransportError } from '../transport-error.js';

/**
 * The default `maxMessageSize` of the HTTP client transports: 16 MiB, so that a tool result as large as
 * the client accepts (`maxResultBytes`, 16 MiB by default) arrives whole.
 */
export const DEFAULT_MAX_HTTP_MESSAGE_SIZE = 16 * 1024 * 1024;

/** A `MESSAGE_TOO_LARGE` TransportError for a message `what` over the limit. */
export function tooLargeError(what: string, details: MessageTooLargeDetails): TransportError {
  return new TransportError(
    LocalErrorCode.MessageTooLarge,
    `${what} is over the largest message this client reads (maxMessageSize, ${details.maxMessageSize} bytes); it was not read`,
    { details: { ...details } },
  );
}

/**
 * The same for an SSE event over `maxMessageSize` (read up to the limit: `receivedBytes` is the limit);
 * with `id`, the answer to that request, which the engine then fails at once.
 */
export function eventTooLargeError(what: string, maxMessageSize: number, id?: RequestId): TransportError {
  const details = { maxMessageSize, receivedBytes: maxMessageSize };
  return tooLargeError(what, id === undefined ? details : { ...details, id, kind: 'answer' });
}

/** Checks a `maxMessageSize` option; the default when it is absent. */
export function maxMessageSizeOption(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_HTTP_MESSAGE_SIZE;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`maxMessageSize must be a positive integer, got ${String(value)}`);
  }
  return value;
}
