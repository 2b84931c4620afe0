/**
 * What of a JSON-RPC error a peer sent is kept where it surfaces (the `ProtocolError` a request rejects
 * with, and so what a gateway relays of an upstream's error): a message of at most
 * {@link MAX_PEER_ERROR_MESSAGE} characters, cut with a marker, and `data` of at most
 * {@link MAX_PEER_ERROR_DATA} characters of JSON, dropped whole past it (the message says so), as a relayed
 * tool result is bounded. A peer's 4 MiB message no longer reaches logs, callers and the gateway's callers
 * whole. Data over the bound may keep a part that fits (what `keep` picks: the `elicitations` of a -32042,
 * without which its error loses its type). Linear in the error's size; a UTF-16 surrogate pair is never
 * split.
 * @module
 */
import type { ErrorObject } from './errors.js';
import type { JsonObject } from './jsonrpc.js';
import { jsonSize } from './json-size.js';

/** The most characters of a peer's error message kept. */
export const MAX_PEER_ERROR_MESSAGE = 64 * 1024;

/** The most characters of JSON of a peer's error `data` kept; larger data is dropped. */
export const MAX_PEER_ERROR_DATA = 1024 * 1024;

/**
 * `error` as it is kept: itself when within both bounds, else a copy with its message cut or data dropped.
 * `keep`: for data over the bound, the part of it kept instead (of at most {@link MAX_PEER_ERROR_DATA}
 * characters of JSON, its caller's to check), or undefined to drop it all.
 */
export function boundPeerError(
  error: ErrorObject,
  keep?: (data: unknown) => JsonObject | undefined,
): ErrorObject {
  const message = typeof error.message === 'string' ? error.message : String(error.message);
  const dataSize = error.data === undefined ? 0 : jsonSize(error.data);
  const dropData = dataSize > MAX_PEER_ERROR_DATA;
  if (message.length <= MAX_PEER_ERROR_MESSAGE && !dropData && message === error.message) return error;
  let kept = cutMessage(message);
  if (!dropData) return { code: error.code, message: kept, data: error.data };
  const part = keep?.(error.data);
  kept += ` [data of ${dataSize} characters of JSON dropped${part ? `, but for ${Object.keys(part).join(', ')}` : ''}]`;
  return part ? { code: error.code, message: kept, data: part } : { code: error.code, message: kept };
}

function cutMessage(message: string): string {
  if (message.length <= MAX_PEER_ERROR_MESSAGE) return message;
  let end = MAX_PEER_ERROR_MESSAGE;
  const last = message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // a high surrogate whose low half is cut off
  return `${message.slice(0, end)}…[truncated ${message.length - end} characters]`;
}
