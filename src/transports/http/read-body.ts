/**
 * Reads a request body with a size limit, so a huge POST cannot exhaust memory; and the JSON body of a
 * POST with its checks (415, 413, 400 -32700 for text not JSON or nested too deep) as one step.
 * @module
 */
import { ErrorCode } from '../../protocol/errors.js';
import { MAX_TEXT_DEPTH, isTextNestedDeeper } from '../../protocol/json-depth.js';
import type { HttpRequestLike, JsonReply } from './http-exchange.js';
import { jsonRpcErrorResponse } from './http-status.js';
import { isJsonContentType } from './media-type.js';

/** One decoder for every body (`decode` without `stream` keeps no state between calls). */
const UTF8 = new TextDecoder();

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/**
 * The body, when the request holds it whole (the node adapter's small POSTs), else undefined; throws
 * `BodyTooLargeError` for a body (declared or held) over `maxBytes`.
 */
function wholeText(request: HttpRequestLike, maxBytes: number): string | undefined {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes)
    throw new BodyTooLargeError(`Body exceeds ${maxBytes} bytes`);
  const whole = request.wholeBody;
  if (!whole) return undefined;
  if (whole.byteLength > maxBytes) throw new BodyTooLargeError(`Body exceeds ${maxBytes} bytes`);
  return UTF8.decode(whole);
}

export async function readBody(request: HttpRequestLike, maxBytes: number): Promise<string> {
  const whole = wholeText(request, maxBytes);
  if (whole !== undefined) return whole;
  if (request.readBody) return UTF8.decode(await request.readBody(maxBytes));
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyTooLargeError(`Body exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return UTF8.decode(chunks.length === 1 ? chunks[0] : concat(chunks, size));
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** The parsed JSON body of a POST, or the error response to send: 415, 413, or 400 with -32700. */
export function readJsonBody(
  request: HttpRequestLike,
  maxBytes: number,
): Promise<{ body: unknown } | JsonReply> | { body: unknown } | JsonReply {
  if (!isJsonContentType(request.headers.get('content-type'))) {
    return jsonRpcErrorResponse(
      415,
      ErrorCode.InvalidRequest,
      'Unsupported Media Type: Content-Type must be application/json',
      {},
      request.headers.get('mcp-protocol-version'),
    );
  }
  // A body read whole already (the node adapter's small POSTs) is parsed at once, with no async step.
  let whole: string | undefined;
  try {
    whole = wholeText(request, maxBytes);
  } catch (error) {
    return unreadable(request, error);
  }
  if (whole !== undefined) return parsed(request, whole);
  return readBody(request, maxBytes).then(
    (text) => parsed(request, text),
    (error: unknown) => unreadable(request, error),
  );
}

function parsed(request: HttpRequestLike, text: string): { body: unknown } | JsonReply {
  // Counted on the text: JSON.parse spends ≈400 MB on a million-deep body before the engine counts.
  if (isTextNestedDeeper(text, MAX_TEXT_DEPTH)) {
    return notJson(request, `the body is nested deeper than ${MAX_TEXT_DEPTH} levels`);
  }
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return notJson(request);
  }
}

function notJson(request: HttpRequestLike, why = 'the body is not valid JSON'): JsonReply {
  return jsonRpcErrorResponse(
    400,
    ErrorCode.ParseError,
    `Parse error: ${why}`,
    {},
    request.headers.get('mcp-protocol-version'),
  );
}

function unreadable(request: HttpRequestLike, error: unknown): JsonReply {
  if (!(error instanceof BodyTooLargeError)) return notJson(request);
  return jsonRpcErrorResponse(
    413,
    ErrorCode.InvalidRequest,
    `Payload Too Large: ${error.message}`,
    {},
    request.headers.get('mcp-protocol-version'),
  );
}
