/**
 * `fetch` on `node:http` and `node:https`: what the MCP HTTP client transports send with unless given a
 * `fetch` of their own.
 *
 * Why not Node's own `fetch` (undici): it holds every response's body stream, and every request's signal
 * and abort controller, through `WeakRef`s and a `FinalizationRegistry`, and V8's young-generation
 * collector keeps whatever a `WeakRef` points to. Under load each request's objects then survive every
 * scavenge until a full collection: a gateway relaying calls to an HTTP upstream promoted ≈2.5 MB per
 * scavenge and spent ≈50 µs per call collecting garbage; with this, ≈0.24 MB.
 *
 * What it covers is what the transports send: an http or https URL, a method, headers, a string or bytes
 * body, an abort signal; redirects are followed as `fetch` follows them (at most 20; a 303, and a 301 or
 * 302 after a POST, become a GET without a body), a redirect's own body read to at most 64 KiB and 1 s —
 * but for the headers sent on to another origin: `fetch` drops only `authorization`; here every header but
 * the protocol's (see {@link keptAcrossOrigins}) is dropped, so that an API key in a header of one's own
 * (a gateway upstream's `headers`) is not sent to whatever host a server redirects to.
 * Anything else (a `Request` object, a streamed body, a `redirect` mode other than `follow`) goes to the
 * global `fetch`. As with `fetch`, a network failure rejects with `TypeError('fetch failed')` and the error
 * as its cause, and an abort with the signal's (or the cancellation's) reason.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import {
  abortError,
  cancellationOf,
  signalOf,
  type Cancellation,
} from '../../protocol/engine/cancellation.js';
import { NodeResponse } from './node-response.js';

/**
 * Keep-alive connections, one pool per protocol. Idle ones do not keep the process alive (Node unrefs a
 * pooled socket), and go after 4 s, before a Node server's default 5 s keep-alive timeout closes them.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4_000 }),
};

const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/**
 * A redirect's body is read (and dropped) while it is at most this long and ends within
 * {@link REDIRECT_BODY_MS}, so its connection goes back to the pool; else the connection is closed. Read
 * to its end, a body that never ended was drained until the request was cancelled (≈400 MB a second).
 */
const MAX_REDIRECT_BODY_BYTES = 64 * 1024;
const REDIRECT_BODY_MS = 1000;
/**
 * The headers a request sent on to another origin keeps: those of HTTP and of MCP (`MCP-Protocol-Version`,
 * `Mcp-Session-Id`, the stateless era's `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), none that may carry a
 * credential (`authorization`, `cookie`, an `x-api-key` of one's own).
 */
function keptAcrossOrigins(name: string): boolean {
  return name.startsWith('mcp-') || ACROSS_ORIGINS.has(name);
}
const ACROSS_ORIGINS = new Set([
  'accept',
  'accept-language',
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'last-event-id',
  'user-agent',
]);

/** Statuses whose response has no body. */
const NO_BODY = new Set([204, 205, 304]);

interface Outgoing {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  cancel: Cancellation | undefined;
}

export const nodeFetch: typeof fetch = (input, init) => cancellableFetch(input, init, undefined);

/**
 * `nodeFetch` cancelled by a {@link Cancellation} instead of `init.signal`: no `AbortSignal` per request (on
 * Node 20 every `AbortSignal` outlives the young-generation collections, and the stateless-era client
 * sends each request with a cancellation of its own).
 */
export function cancellableFetch(
  input: Parameters<typeof fetch>[0],
  init: RequestInit | undefined,
  cancellation: Cancellation | undefined,
): Promise<Response> {
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
  const body = init?.body ?? undefined;
  if (
    !url ||
    !(url.protocol in agents) ||
    (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) ||
    (init?.redirect !== undefined && init.redirect !== 'follow')
  ) {
    return fetch(input, cancellation ? { ...init, signal: signalOf(cancellation) } : init);
  }
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value;
  });
  // Set here, on this request's own headers: a redirect that drops the body drops it with the other
  // content headers.
  if (body !== undefined) {
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  }
  const cancel = cancellation ?? (init?.signal ? cancellationOf(init.signal) : undefined);
  return follow({ url, method: (init?.method ?? 'GET').toUpperCase(), headers, body, cancel }, 0);
}

async function follow(request: Outgoing, redirects: number): Promise<Response> {
  const response = await send(request, true);
  const location = response.headers.location;
  if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) {
    return toResponse(request, response, redirects > 0);
  }
  discardRedirectBody(response);
  if (redirects >= MAX_REDIRECTS) {
    throw new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) });
  }
  const url = new URL(location, request.url);
  const headers = { ...request.headers };
  if (url.origin !== request.url.origin) {
    for (const name of Object.keys(headers)) if (!keptAcrossOrigins(name)) delete headers[name];
  }
  const status = response.statusCode;
  const asGet = status === 303 || ((status === 301 || status === 302) && request.method === 'POST');
  if (asGet) {
    for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language']) {
      delete headers[name];
    }
  }
  return follow(
    {
      url,
      method: asGet && request.method !== 'HEAD' ? 'GET' : request.method,
      headers,
      body: asGet ? undefined : request.body,
      cancel: request.cancel,
    },
    redirects + 1,
  );
}

/** Drops a redirect's body: read to its end when short and quick (see {@link MAX_REDIRECT_BODY_BYTES}), else cut. */
function discardRedirectBody(response: http.IncomingMessage): void {
  let bytes = 0;
  const cut = (): void => {
    clearTimeout(timer);
    response.destroy();
  };
  const timer = setTimeout(cut, REDIRECT_BODY_MS);
  timer.unref();
  response.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_REDIRECT_BODY_BYTES) cut();
  });
  response.once('end', () => clearTimeout(timer));
  response.once('close', () => clearTimeout(timer));
}

/**
 * Sends one request; resolves with the response's head. A kept-alive connection the server closed just
 * before it was used again fails with ECONNRESET before any answer: such a request is sent once more, on a
 * new connection (the server never read it).
 */
function send(request: Outgoing, retry: boolean): Promise<http.IncomingMessage> {
  const { url, method, headers, body, cancel } = request;
  return new Promise((resolve, reject) => {
    if (cancel?.aborted) {
      reject(cancel.reason as Error);
      return;
    }
    const agent = agents[url.protocol as keyof typeof agents];
    const client = url.protocol === 'https:' ? https : http;
    const outgoing = client.request(url, { method, agent, headers });
    if (cancel) {
      // Until the exchange is over, response body included (as `http.request`'s own `signal` does).
      const stop = cancel.onAbort((reason) => outgoing.destroy(abortedWith(reason)));
      outgoing.once('close', stop);
    }
    outgoing.once('response', resolve);
    outgoing.once('error', (error: NodeJS.ErrnoException) => {
      if (cancel?.aborted) reject(cancel.reason as Error);
      else if (retry && outgoing.reusedSocket && error.code === 'ECONNRESET') {
        send(request, false).then(resolve, reject);
      } else reject(new TypeError('fetch failed', { cause: error }));
    });
    outgoing.end(body);
  });
}

/** What an aborted exchange's streams fail with: the reason when it is an error, else an `AbortError`. */
function abortedWith(reason: unknown): Error {
  return reason instanceof Error ? reason : abortError();
}

/** The response as `fetch`'s (a {@link NodeResponse}: the members the transports read, no web stream). */
function toResponse(request: Outgoing, response: http.IncomingMessage, redirected: boolean): Response {
  const empty = NO_BODY.has(response.statusCode ?? 0) || request.method === 'HEAD';
  if (empty) response.resume();
  return new NodeResponse(response, !empty, request.url, redirected) as unknown as Response;
}
