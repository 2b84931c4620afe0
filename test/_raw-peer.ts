// A raw JSON-RPC peer of a Server over the in-memory pair, in either era: what the server sends is kept
// in the order it arrived (responses and notifications alike), so a test can tell what came after what.
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import type { Server } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

export type RawVersion = '2024-11-05' | '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';

export interface RawPeer {
  /** Everything the server sent so far, in order. */
  readonly received: JsonObject[];
  /** Sends a request (with the 2026-07-28 `_meta` when stateless) and resolves with its response. */
  request(method: string, params?: JsonObject): Promise<JsonObject>;
  /** The result of a request; throws with the error when there is none. */
  result(method: string, params?: JsonObject): Promise<JsonObject>;
  /** The id the next request gets. */
  readonly nextId: number;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** Connects a raw peer to `server`; a handshake-era one initializes first. */
export async function rawPeer(server: Server, version: RawVersion): Promise<RawPeer> {
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  const received: JsonObject[] = [];
  const waiting = new Map<number, (message: JsonObject) => void>();
  clientEnd.onmessage = (message) => {
    const m = message as JsonObject;
    received.push(m);
    if (m.method === undefined && typeof m.id === 'number') waiting.get(m.id)?.(m);
  };
  await clientEnd.start();
  let nextId = 1;
  const stateless = version === '2026-07-28';
  const request = (method: string, params: JsonObject = {}): Promise<JsonObject> => {
    const id = nextId++;
    const sent = stateless
      ? { ...params, _meta: { ...STATELESS_META, ...(params._meta as object) } }
      : params;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      void clientEnd.send({ jsonrpc: '2.0', id, method, params: sent });
    });
  };
  const result = async (method: string, params: JsonObject = {}): Promise<JsonObject> => {
    const response = await request(method, params);
    if (!response.result) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as JsonObject;
  };
  if (!stateless) {
    await result('initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    await clientEnd.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  const close = () => server.close();
  return {
    received,
    request,
    result,
    get nextId() {
      return nextId;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
