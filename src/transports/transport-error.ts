/**
 * The local error of the transport layer: spawn failures, closed connections, oversized messages.
 * @module
 */
import { ToolwireError } from '../protocol/errors.js';

/**
 * A transport failed locally. `code` is one of the `LocalErrorCode` values, typically
 * `MESSAGE_TOO_LARGE`, `SPAWN_FAILED`, `SEND_FAILED`, `CONNECTION_CLOSED`, `NOT_CONNECTED`
 * or `ALREADY_CONNECTED`. The OS error, if any, is the `cause`.
 */
export class TransportError extends ToolwireError {
  override name = 'TransportError';
}
