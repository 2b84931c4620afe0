/**
 * The JSON-RPC messages a client reads from a JSON answer's body or an SSE event's data: one message or
 * a batch of them.
 * @module
 */
import { ErrorCode, ProtocolError, errorMessage } from '../../protocol/errors.js';
import { parsePeerJson } from '../../protocol/json-depth.js';

/**
 * The messages in `text` (the one message, or each of a batch); none when it is not JSON, after
 * `report` is told with a -32700 `ProtocolError`.
 */
export function jsonMessages(text: string, report: (error: ProtocolError) => void): unknown[] {
  let value: unknown;
  try {
    value = parsePeerJson(text);
  } catch (error) {
    report(
      new ProtocolError(ErrorCode.ParseError, `Parse error: ${errorMessage(error)}`, undefined, {
        cause: error,
      }),
    );
    return [];
  }
  return Array.isArray(value) ? (value as unknown[]) : [value];
}
