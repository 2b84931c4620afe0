/**
 * The decision API's JSON, both ways: its replies (`json`, and `failure` for an error, as
 * `{ error: { code, message } }`), never cached nor sniffed, and the JSON object a POST carries
 * (`readJson`), refused when it is not `application/json`, too large or not an object.
 * @module
 */

const MAX_BODY_BYTES = 64 * 1024;

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...headers,
    },
  });
}

export function failure(
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): Response {
  return json(status, { error: { code, message } }, headers);
}

/** The JSON object a POST carries (an empty body is `{}`), or the response that refuses it. */
export async function readJson(request: Request): Promise<Record<string, unknown> | Response> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    return failure(415, 'UNSUPPORTED_MEDIA_TYPE', 'A POST must be Content-Type: application/json');
  }
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (!reader) break;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      return failure(413, 'TOO_LARGE', `The body may have at most ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  return failure(400, 'INVALID_REQUEST', 'The body must be a JSON object');
}
