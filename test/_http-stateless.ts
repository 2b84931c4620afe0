// Fixtures for the stateless-era Streamable HTTP tests (test/http-stateless-*.test.ts): toolwire's
// fixture server on serveHttp (closed by `closeServer`, which each test file runs `afterEach`), raw
// stateless-era POSTs with the headers a conforming client sends, and reading their answer.
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Server } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../src/transports/http/index.js';
import { SseReader } from './_sse.js';

const FIXTURE = new URL('./fixtures/http-stateless-server.mjs', import.meta.url).href;
export const STATELESS = '2026-07-28';
export const META = (extra: JsonObject = {}): JsonObject => ({
  'io.modelcontextprotocol/protocolVersion': STATELESS,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
  ...extra,
});
export const SERVER_INFO = { name: 'protocol-fixture', version: '1.0.0', title: 'Protocol fixture' };

/** The server the last `start` served; a live binding, so test files read it as `handle!`. */
export let handle: HttpServerHandle | undefined;

export async function closeServer(): Promise<void> {
  await handle?.close();
  handle = undefined;
}

export async function start(options: ServeHttpOptions & { versions?: string[] } = {}): Promise<string> {
  const { versions, ...http } = options;
  const mod = (await import(FIXTURE)) as { default: (options?: object) => Server };
  handle = await serveHttp(mod.default(versions ? { versions } : {}), { port: 0, ...http });
  return handle.url;
}

export interface Call {
  id?: number;
  method: string;
  params?: JsonObject;
  /** Header overrides; `undefined` removes a header. */
  headers?: Record<string, string | undefined>;
}

/** POSTs a stateless-era request with the headers a conforming client sends (unless overridden). */
export function stateless(
  url: string,
  { id = 1, method, params = {}, headers = {} }: Call,
): Promise<Response> {
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: params._meta ?? META() } };
  const name = method === 'resources/read' ? params.uri : params.name;
  const all: Record<string, string | undefined> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': STATELESS,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...headers,
  };
  const sent = Object.fromEntries(
    Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return fetch(url, { method: 'POST', headers: sent, body: JSON.stringify(body) });
}

/** The one JSON-RPC message of a JSON response, or the last of an SSE stream. */
export async function answer(response: Response): Promise<Record<string, unknown>> {
  if (response.headers.get('content-type') === 'application/json')
    return (await response.json()) as Record<string, unknown>;
  const reader = new SseReader(response);
  let last: Record<string, unknown> | undefined;
  for (let message = await reader.nextMessage(); message; message = await reader.nextMessage())
    last = message;
  return last!;
}

export const text = (message: Record<string, unknown>) =>
  ((message.result as { content: { text: string }[] }).content[0] ?? { text: '' }).text;
