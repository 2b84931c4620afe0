// The transport matrix: every protocol test runs over the in-memory pair, over stdio (a real child
// process) and over Streamable HTTP (the web-standard handler called in process, no socket), against the
// same fixture server.
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import type { ConnectOptions, Server } from '../src/server/index.js';
import { StreamableHttpHandler } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';

export const FIXTURE = fileURLToPath(new URL('./fixtures/protocol-server.mjs', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/toolwire.mjs', import.meta.url));

/** The command that serves a fixture module over stdio. */
export function serverCommand(fixture: string = FIXTURE): { command: string; args: string[] } {
  return { command: process.execPath, args: [BIN, 'serve', fixture] };
}

export interface Connected {
  client: Client;
  /** The server object, where it lives in this process (in-memory and HTTP). */
  server: Server | undefined;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export type Connect = (options?: ClientOptions & { fixture?: string }) => Promise<Connected>;

/** A client connected to `server` over the in-memory pair; disposing closes both. */
export async function linkServer(
  server: Server,
  options: ClientOptions = {},
  connect: ConnectOptions = {},
): Promise<Connected & { server: Server }> {
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd, connect);
  const client = new Client({ name: 'matrix', version: '1.0.0' }, options);
  await client.connect(clientEnd);
  const close = async () => {
    await client.close();
    await server.close();
  };
  return { client, server, close, [Symbol.asyncDispose]: close };
}

async function inMemory(options: ClientOptions & { fixture?: string } = {}): Promise<Connected> {
  const mod = (await import(options.fixture ?? FIXTURE)) as { default: () => Server };
  return linkServer(mod.default(), options);
}

async function stdio(options: ClientOptions & { fixture?: string } = {}): Promise<Connected> {
  const transport = new StdioClientTransport({ ...serverCommand(options.fixture), stderr: 'ignore' });
  const client = new Client({ name: 'matrix', version: '1.0.0' }, options);
  await client.connect(transport);
  const close = () => client.close();
  return { client, server: undefined, close, [Symbol.asyncDispose]: close };
}

/**
 * A client transport whose `fetch` calls a Streamable HTTP handler directly (no socket), and the handler
 * serving `server` (stateful sessions, default options).
 */
export function inProcessHttp(server: Server): {
  transport: StreamableHttpClientTransport;
  handler: StreamableHttpHandler;
} {
  const handler = new StreamableHttpHandler(server);
  const transport = new StreamableHttpClientTransport({
    url: 'http://127.0.0.1/mcp',
    // A socket's fetch sends Host from the URL; a Request built in process has none, so set it here.
    fetch: (input, init) => {
      const request = new Request(input, init);
      request.headers.set('host', new URL(request.url).host);
      return handler.handle(request);
    },
  });
  return { transport, handler };
}

/** The fixture over {@link inProcessHttp}; closing closes the client (DELETE), the handler and the server. */
async function http(options: ClientOptions & { fixture?: string } = {}): Promise<Connected> {
  const mod = (await import(options.fixture ?? FIXTURE)) as { default: () => Server };
  const server = mod.default();
  const { transport, handler } = inProcessHttp(server);
  const client = new Client({ name: 'matrix', version: '1.0.0' }, options);
  await client.connect(transport);
  const close = async () => {
    await client.close();
    await handler.close();
    await server.close();
  };
  return { client, server, close, [Symbol.asyncDispose]: close };
}

export const TRANSPORTS: ReadonlyArray<{ name: string; connect: Connect }> = [
  { name: 'in-memory', connect: inMemory },
  { name: 'stdio', connect: stdio },
  { name: 'http', connect: http },
];

/** Runs `fn` once per transport. */
export function describeMatrix(title: string, fn: (connect: Connect, transport: string) => void): void {
  for (const { name, connect } of TRANSPORTS) {
    describe(`${title} [${name}]`, () => fn(connect, name));
  }
}

/** Client handlers for the fixture's `ask`, `sample` and `roots` tools (both eras use the same ones). */
export const INPUT_HANDLERS: ClientOptions = {
  elicitation: (params) => ({
    action: 'accept',
    content: { name: params.message === 'Name?' ? 'Ada' : '?' },
  }),
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }),
  roots: [{ uri: 'file:///r1' }, { uri: 'file:///r2' }],
};

/** The fixture's input tools answered through {@link INPUT_HANDLERS}. */
export async function expectInputAnswered(client: Client): Promise<void> {
  expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'accept:Ada' }]);
  expect((await client.callTool('sample')).content).toEqual([{ type: 'text', text: 'model said hello' }]);
  expect((await client.callTool('roots')).content).toEqual([{ type: 'text', text: 'file:///r1,file:///r2' }]);
}
