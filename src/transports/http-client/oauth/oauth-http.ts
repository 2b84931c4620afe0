/**
 * How the OAuth client talks to authorization servers and metadata endpoints: every URL it is given by a
 * server is checked (HTTPS, or plain HTTP to a loopback host), every request is bounded in time, never
 * follows redirects, and every answer is bounded in size, so a hostile or broken server cannot make the
 * client wait forever, read without end, or go where it was not sent.
 * @module
 */
import { mergedSignal } from '../../../protocol/engine/merged-signal.js';
import { OAuthError, type OAuthStep } from './oauth-error.js';

/** The longest a metadata, registration or token request may take, in ms. */
export const OAUTH_REQUEST_TIMEOUT_MS = 30_000;
/** The largest metadata document, registration or token response read, in bytes. */
export const OAUTH_MAX_RESPONSE_BYTES = 256 * 1024;
/** The longest URL taken from a server (metadata URLs, endpoints, issuers). */
const MAX_URL_CHARS = 4096;

const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;

/** Whether `url` names this machine (`localhost`, `127.x.x.x`, `[::1]`). */
export function isLoopback(url: URL): boolean {
  return LOOPBACK_HOST.test(url.hostname);
}

/**
 * The URL `value` names, if it may be used as an OAuth endpoint, issuer or metadata URL: absolute, no
 * fragment, HTTPS — or plain HTTP to a loopback host, or anywhere when `allowInsecureHttp`. Anything
 * else is an `OAuthError` naming `what`.
 */
export function checkedUrl(value: unknown, what: string, step: OAuthStep, allowInsecureHttp: boolean): URL {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URL_CHARS) {
    throw new OAuthError(`${what} is not a URL: ${describe(value)}`, { step });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthError(`${what} is not a URL: ${describe(value)}`, { step });
  }
  if (url.hash !== '') throw new OAuthError(`${what} has a fragment: ${value}`, { step });
  const secure =
    url.protocol === 'https:' || (url.protocol === 'http:' && (allowInsecureHttp || isLoopback(url)));
  if (!secure) {
    throw new OAuthError(
      `${what} must use HTTPS (plain HTTP only to a loopback host, unless allowInsecureHttp): ${value}`,
      { step, url: value },
    );
  }
  return url;
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Statuses whose responses have no body (a `Response` with one cannot be built for them). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `base`, bounded: each request is aborted after `timeoutMs` (or by its own signal), redirects are not
 * followed (a 3xx is returned as is), and a response body larger than `maxBytes` errors when read.
 */
export function boundedFetch(
  base: typeof fetch,
  timeoutMs: number = OAUTH_REQUEST_TIMEOUT_MS,
  maxBytes: number = OAUTH_MAX_RESPONSE_BYTES,
): typeof fetch {
  return async (input, init = {}) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    // Followed until the body is read (at most `timeoutMs`: the timeout ends the following too).
    const merged = init.signal ? mergedSignal([init.signal, timeout]) : undefined;
    const done = (): void => merged?.dispose();
    const signal = merged?.signal ?? timeout;
    let response: Response;
    try {
      response = await base(input, { ...init, signal, redirect: 'manual' });
    } catch (error) {
      done();
      throw error;
    }
    if (!response.body || NULL_BODY.has(response.status)) {
      done();
      return response;
    }
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxBytes) return controller.enqueue(chunk);
          done();
          controller.error(new Error(`the response is larger than ${maxBytes} bytes`));
        },
        flush: done,
      }),
    );
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Reads a JSON object from a 200 response; anything else is `undefined` (the body is dropped). */
export async function jsonObject(response: Response): Promise<Record<string, unknown> | undefined> {
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  return readJsonObject(response);
}

/** The body of a response as a JSON object, whatever its status; `undefined` when it is not one. */
export async function readJsonObject(response: Response): Promise<Record<string, unknown> | undefined> {
  let value: unknown;
  try {
    value = await response.json();
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The OAuth error of an error response's JSON body (RFC 6749 §5.2), when it has one (cut short). */
export async function oauthErrorBody(
  response: Response,
): Promise<{ error?: string; errorDescription?: string }> {
  const body = await readJsonObject(response);
  const error = typeof body?.error === 'string' ? body.error.slice(0, 100) : undefined;
  const description =
    typeof body?.error_description === 'string' ? body.error_description.slice(0, 300) : undefined;
  return {
    ...(error === undefined ? {} : { error }),
    ...(description === undefined ? {} : { errorDescription: description }),
  };
}
