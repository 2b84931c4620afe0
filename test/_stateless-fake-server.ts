// A hand-written stateless-era (2026-07-28) server for the client tests (test/client-stateless-*.test.ts):
// a Peer on the in-memory pair that answers server/discover and the given handlers, recording every
// message it receives, plus the _meta keys of the era and small helpers.
import { Client, type ClientOptions } from '../src/client/index.js';
import { Peer, type RequestContext } from '../src/protocol/engine/peer.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

export const VERSION = 'io.modelcontextprotocol/protocolVersion';
export const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
export const INFO = { name: 'stateless-test', version: '1.0.0' };

export const DISCOVER = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
  instructions: 'be nice',
  ttlMs: 0,
  cacheScope: 'public',
  _meta: { [SERVER_INFO]: { name: 'fake-stateless', version: '2' } },
};

export type Handler = (params: JsonObject, ctx: RequestContext) => JsonObject | Promise<JsonObject>;
export interface Received {
  id: string | number;
  method: string;
  params: JsonObject;
}

/** A hand-written server on the in-memory pair; records every message it receives. */
export async function fakeServer(handlers: Record<string, Handler>, options: ClientOptions = {}) {
  const [clientEnd, serverEnd] = createLinkedPair();
  const peer = new Peer();
  const received: Received[] = [];
  const wire: JsonObject[] = [];
  const all: Record<string, Handler> = { 'server/discover': () => DISCOVER, ...handlers };
  for (const [method, handler] of Object.entries(all)) {
    peer.setRequestHandler(method, (params, ctx) => {
      received.push({ id: ctx.id, method, params });
      return handler(params, ctx);
    });
  }
  await peer.connect(serverEnd);
  const dispatch = serverEnd.onmessage!;
  serverEnd.onmessage = (message) => {
    wire.push(message as JsonObject);
    dispatch(message);
  };
  const client = new Client(INFO, options);
  const connected = client.connect(clientEnd);
  const close = () => client.close();
  return {
    client,
    peer,
    received,
    wire,
    connected,
    calls: (method: string) => received.filter((r) => r.method === method),
    close,
    [Symbol.asyncDispose]: close,
  };
}

export const never = (ctx: RequestContext) =>
  new Promise<JsonObject>((resolve) =>
    ctx.signal.addEventListener('abort', () => resolve({}), { once: true }),
  );

export const tool = (name: string, inputSchema: JsonObject = { type: 'object' }) => ({ name, inputSchema });
