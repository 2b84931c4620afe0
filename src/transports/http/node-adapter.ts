/**
 * The thin Node.js adapter: node:http requests in, web `Request` to the handler, its `Response` back out
 * (streamed, with backpressure). Also `serveHttp`, which listens on 127.0.0.1 unless told otherwise.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { Server } from '../../server/index.js';
import type { StreamableHttpOptions } from './http-options.js';
import { StreamableHttpHandler } from './streamable-http-handler.js';

export interface FetchHandler {
  handle(request: Request): Promise<Response>;
}

/** `req.body` as Express' JSON middleware leaves it, when it ran first. */
type MaybeParsed = IncomingMessage & { body?: unknown };

export function toWebRequest(req: MaybeParsed, signal: AbortSignal): Request {
  const url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE')
    return new Request(url, { method, headers, signal });
  const body =
    req.body !== undefined ? JSON.stringify(req.body) : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
  return new Request(url, { method, headers, body, signal, duplex: 'half' } as RequestInit);
}

export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => (headers[key] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } catch {
    // the client went away
  }
  res.end();
}

/** A node:http listener for any fetch-style handler (mount it in node:http, Express, Fastify's raw reply). */
export function toNodeHandler(handler: FetchHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    handler
      .handle(toWebRequest(req, controller.signal))
      .then((response) => writeWebResponse(response, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }),
        );
      });
  };
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
  close(): Promise<void>;
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
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
