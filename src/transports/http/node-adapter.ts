/**
 * The thin Node.js adapter: node:http requests in, web `Request` to the handler, its `Response` back out
 * (streamed, with backpressure). Also `serveHttp`, which listens on 127.0.0.1 unless told otherwise.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { ErrorCode } from '../../protocol/errors.js';
import type { Server } from '../../server/index.js';
import type { StreamableHttpOptions } from './http-options.js';
import { JsonReply, SseReply, type HttpRequestLike, type Reply } from './http-exchange.js';
import { jsonRpcErrorResponse } from './http-status.js';
import {
  ClientGone,
  NodeRequestView,
  requestTargetProblem,
  smallBody,
  type MaybeParsed,
} from './node-request-view.js';
import { writeSseReply } from './node-sse-writer.js';
import { StreamableHttpHandler } from './streamable-http-handler.js';

export interface FetchHandler {
  handle(request: Request): Promise<Response>;
}

/**
 * A handler that also answers a light request view with a light reply (`StreamableHttpHandler.serve`):
 * the adapter then builds no web `Request` or `Response` at all for a JSON exchange.
 */
export interface ReplyHandler {
  serve(request: HttpRequestLike): Promise<Reply>;
}

/**
 * Writes a whole reply, its headers and body in one write. node:http frames the body in chunks: a declared
 * Content-Length measured no faster here and raised the working RSS of a 100k-request soak from ≈88 to
 * 100–120 MB, where chunked replies keep it flat (both measured with bench/load.mjs).
 */
function writeJsonReply(reply: JsonReply, res: ServerResponse): void {
  res.writeHead(reply.status, reply.headers.values as Record<string, string>);
  if (reply.bodyText === null) res.end();
  else res.end(reply.bodyText);
}

function isReplyHandler(handler: FetchHandler | ReplyHandler): handler is ReplyHandler {
  return typeof (handler as Partial<ReplyHandler>).serve === 'function';
}

/**
 * The web `Request` for a node:http request; its `signal` is `signal` itself. It is set on the instance
 * rather than given to the constructor: a `Request` built with a signal follows it through a listener, a
 * weak reference and a finalization registry entry (about 30 µs per request on Node 20, a tenth of a
 * tool call over HTTP), where aborting `signal` is all the adapter needs.
 */
export function toWebRequest(req: MaybeParsed, signal: AbortSignal, whole?: Uint8Array): Request {
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const method = req.method ?? 'GET';
  let request: Request;
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE') {
    request = new Request(url, { method, headers });
  } else {
    const body =
      req.body !== undefined
        ? JSON.stringify(req.body)
        : (whole ?? (Readable.toWeb(req) as ReadableStream<Uint8Array>));
    request = new Request(url, { method, headers, body, duplex: 'half' } as RequestInit);
  }
  Object.defineProperty(request, 'signal', { value: signal, enumerable: true });
  return request;
}

export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  if (!response.body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!headers['content-type']?.startsWith('text/event-stream')) {
    // A whole body (JSON): read it at once and send it with the headers, in one write.
    const body = new Uint8Array(await response.arrayBuffer());
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  // A body that errs (its source gave up on this reader) ends the connection, even while a reader that
  // does not read keeps the socket from draining; so does the client going away.
  let failed = false;
  let wake: (() => void) | undefined;
  reader.closed.then(
    () => undefined,
    () => {
      failed = true;
      wake?.();
    },
  );
  res.on('close', () => {
    wake?.();
    void reader.cancel().catch(() => undefined);
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          res.once('drain', resolve);
        });
        wake = undefined;
        if (failed || res.destroyed) break;
      }
    }
  } catch {
    failed = true;
  }
  if (failed) res.destroy();
  else res.end();
}

/**
 * A node:http listener for any fetch-style handler (mount it in node:http, Express, Fastify's raw reply).
 * A toolwire `StreamableHttpHandler` is served through its native path (`serve`): no web `Request` or
 * `Response` is built for a JSON exchange, nor for an SSE one (`node-sse-writer.ts`).
 */
export function toNodeHandler(
  handler: FetchHandler | ReplyHandler,
): (req: IncomingMessage, res: ServerResponse) => void {
  const native = isReplyHandler(handler);
  return (req, res) => void answer(handler, native, req, res);
}

/** One request through the handler, its reply written (a 500 with -32603 if anything throws). */
async function answer(
  handler: FetchHandler | ReplyHandler,
  native: boolean,
  req: MaybeParsed,
  res: ServerResponse,
): Promise<void> {
  try {
    const problem = requestTargetProblem(req);
    if (problem !== undefined) {
      writeJsonReply(jsonRpcErrorResponse(400, ErrorCode.InvalidRequest, problem), res);
      return;
    }
    const gone = new ClientGone(res);
    await Promise.resolve(); // the rest of this read (a small body) is parsed meanwhile
    const pending = smallBody(req);
    const whole = pending instanceof Promise ? await pending : pending;
    const reply = native
      ? await (handler as ReplyHandler).serve(new NodeRequestView(req, gone, whole))
      : await (handler as FetchHandler).handle(toWebRequest(req, gone.signal, whole));
    if (reply instanceof JsonReply) writeJsonReply(reply, res);
    else if (reply instanceof SseReply) writeSseReply(reply, res, gone);
    else await writeWebResponse(reply, res);
  } catch {
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }));
  }
}

export interface ServeHttpOptions extends StreamableHttpOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: only this machine can connect. */
  host?: string;
}

export interface HttpServerHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly port: number;
  readonly handler: StreamableHttpHandler;
  /**
   * Closes the handler (see `StreamableHttpHandler.close`), then stops listening. With `graceMs`, running
   * requests get that long to finish (the server still listens meanwhile: new sessions get 503, answers
   * and cancellations for running calls go in), and responses still being written get as long again
   * before their connections are cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Serves a toolwire Server over Streamable HTTP (and legacy HTTP+SSE) on node:http. */
export async function serveHttp(server: Server, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  const handler = new StreamableHttpHandler(server, options);
  const http = createServer(toNodeHandler(handler));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 3000, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${options.endpoint ?? '/mcp'}`,
    port,
    handler,
    async close(options = {}) {
      // Still listening while the handler drains: answers and cancellations for running calls come in,
      // new sessions get 503. Then no new connection; `ended` resolves once every connection has ended.
      await handler.close(options);
      const ended = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      if (options.graceMs) await Promise.race([ended, delay(options.graceMs)]);
      http.closeAllConnections();
      await ended;
    },
  };
}

/** Resolves after `ms` without keeping the process alive. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
