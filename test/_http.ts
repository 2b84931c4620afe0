// Helpers for wire-level tests of the Streamable HTTP server: serveHttp on 127.0.0.1, raw fetch, and
// raw HTTP/1.1 over a socket for what fetch cannot send.
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { connect } from 'node:net';
import { afterEach, expect } from 'vitest';
import type { Server } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../src/transports/http/index.js';
import { SseReader } from './_sse.js';

const FIXTURE = new URL('./fixtures/http-server.mjs', import.meta.url).href;
export const ACCEPT = 'application/json, text/event-stream';

export const INIT = (version = '2025-11-25', id: number | string = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: version,
    capabilities: { elicitation: {} },
    clientInfo: { name: 'raw', version: '1' },
  },
});

/** The server a test started (closed after each test). */
export const served: { handle: HttpServerHandle | undefined } = { handle: undefined };

/** Registers the hook that closes the test's server; call once at the top of a test file. */
export function closeServedAfterEach(): void {
  afterEach(async () => {
    await served.handle?.close();
    served.handle = undefined;
  });
}

/** Serves the HTTP fixture server on a free port. */
export async function start(
  options: ServeHttpOptions = {},
): Promise<{ url: string; server: Server; handle: HttpServerHandle }> {
  const mod = (await import(FIXTURE)) as { default: () => Server };
  const server = mod.default();
  const handle = await serveHttp(server, { port: 0, ...options });
  served.handle = handle;
  return { url: handle.url, server, handle };
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Initializes a session (and acknowledges it), declaring `capabilities` if given; returns its id. */
export async function open(url: string, version = '2025-11-25', capabilities?: JsonObject): Promise<string> {
  const init = INIT(version);
  const response = await post(
    url,
    capabilities ? { ...init, params: { ...init.params, capabilities } } : init,
  );
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id');
  expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
  if (response.headers.get('content-type') === 'text/event-stream') {
    expect(await new SseReader(response).nextMessage()).toMatchObject({ id: 0 });
  } else {
    expect(await response.json()).toMatchObject({ id: 0 });
  }
  const ack = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': sessionId! },
  );
  expect(ack.status).toBe(202);
  return sessionId!;
}

/** The headers of a 2025-11-25 request by `who` (a bearer token that is the subject's name), in a session. */
export const asSubject = (who: string, sessionId?: string): Record<string, string> => ({
  authorization: `Bearer ${who}`,
  'mcp-protocol-version': '2025-11-25',
  ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
});

/**
 * Initializes a session over SSE and acknowledges it, each request with `headers(sessionId)` (undefined for
 * the `initialize`); returns its id.
 */
export async function openSession(
  url: string,
  headers: (sessionId?: string) => Record<string, string>,
): Promise<string> {
  const response = await post(url, INIT(), headers());
  expect(response.status).toBe(200);
  const sessionId = response.headers.get('mcp-session-id')!;
  await new SseReader(response).nextMessage();
  const acked = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers(sessionId));
  expect(acked.status).toBe(202);
  return sessionId;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `text` as is to the server's socket and reads the one answer (the request asks to close). */
export function raw(port: number, text: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (out += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const end = out.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = out.slice(0, end === -1 ? out.length : end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = end === -1 ? '' : out.slice(end + 4);
      if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

function unchunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    if (eol === -1) return out;
    const size = parseInt(text.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

/** A JSON-RPC answer as the tests read it. */
export type RpcAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

let nextRpcId = 1;

/**
 * A request to `url`: a stateless-era one (`meta` as its `_meta`, the 2026-07-28 headers, `Mcp-Name` for a
 * tool or task), or with `session` a handshake-era session's (its headers, no `_meta`). Throws for a status
 * other than 200, with the body. A JSON answer, or the answer on an SSE stream (what comes before it skipped).
 */
export async function rpcTo(
  url: string,
  method: string,
  params: JsonObject,
  meta: JsonObject,
  session?: Record<string, string>,
): Promise<RpcAnswer> {
  const name = (method === 'tools/call' ? params.name : params.taskId) as string | undefined;
  const headers = session ?? {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
  };
  const body = {
    jsonrpc: '2.0',
    id: nextRpcId++,
    method,
    params: session ? params : { ...params, _meta: meta },
  };
  const response = await post(url, body, headers);
  if (response.status !== 200) throw new Error(`${method}: ${response.status} ${await response.text()}`);
  if (response.headers.get('content-type') !== 'text/event-stream')
    return (await response.json()) as RpcAnswer;
  const stream = new SseReader(response);
  for (let message = await stream.nextMessage(); ; message = await stream.nextMessage()) {
    if (message === undefined) throw new Error(`${method}: the stream ended without its answer`);
    if (message.id === body.id && !('method' in message)) return message as RpcAnswer;
  }
}
