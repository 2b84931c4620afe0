// The toolwire client over HTTP against official SDK servers: SDK 1.x stateless Streamable HTTP (a fresh
// server per request, the SDK's own idiom) and the SDK 2.x web-standard handler (`createMcpHandler`).
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/index.js';
import type { ProgressParams } from '../../src/protocol/types/lifecycle.js';
import { toNodeHandler } from '../../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../../src/transports/http-client/index.js';
import { REVISIONS } from './_helpers.js';

type Factory = { createServer: () => { connect(t: unknown): Promise<void>; close(): Promise<void> } };
const v1 = (await import(new URL('../fixtures/sdk-server-v1.mjs', import.meta.url).href)) as Factory;
const v2 = (await import(new URL('../fixtures/sdk-server-v2.mjs', import.meta.url).href)) as Factory;

let http: HttpServer | undefined;
afterEach(async () => {
  http?.closeAllConnections();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  http = undefined;
});

async function listen(handler: Parameters<typeof createHttpServer>[1]): Promise<string> {
  http = createHttpServer(handler);
  await new Promise<void>((resolve) => http!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

/** SDK 1.x, stateless: a new McpServer and transport per request. */
const sdkV1Stateless = () =>
  listen((req, res) => {
    const server = v1.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: false,
    });
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });

/** SDK 2.x: its web-standard handler, mounted through toolwire's node adapter. */
const sdkV2Handler = () => {
  const handler = createMcpHandler(() => v2.createServer() as never);
  return listen(toNodeHandler({ handle: (request) => handler.fetch(request) }));
};

const SERVERS = [
  { title: 'SDK 1.x stateless Streamable HTTP', start: sdkV1Stateless },
  { title: 'SDK 2.x createMcpHandler', start: sdkV2Handler },
];

describe.each(SERVERS)('toolwire client -> $title', ({ start }) => {
  it.each(REVISIONS.filter((r) => r !== '2024-11-05'))('lists and calls tools at %s', async (version) => {
    const url = await start();
    const client = new Client({ name: 'toolwire-http', version: '1' }, { protocolVersion: version });
    await client.connect(new StreamableHttpClientTransport({ url }));
    expect(client.protocolVersion).toBe(version);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add', 'slow', 'extra_5']));
    expect((await client.callTool('echo', { text: 'über' })).content).toEqual([
      { type: 'text', text: 'über' },
    ]);
    if (version >= '2025-06-18') {
      expect(await client.callTool('add', { a: 20, b: 22 })).toMatchObject({
        structuredContent: { sum: 42 },
      });
      await expect(client.callTool('coerced')).rejects.toMatchObject({ code: 'OUTPUT_SCHEMA_MISMATCH' });
    }
    const progress: ProgressParams[] = [];
    await client.callTool('slow', { steps: 2, ms: 5 }, { onProgress: (p) => progress.push(p) });
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    expect((await client.callTool('throws')).isError).toBe(true);
    await client.close();
  });
});

describe('toolwire client (auto) -> SDK 2.x createMcpHandler', () => {
  it('picks the stateless era and lists and calls tools in it', async () => {
    const url = await sdkV2Handler();
    const client = new Client({ name: 'toolwire-http', version: '1' });
    await client.connect(new StreamableHttpClientTransport({ url }));
    expect(client.era).toBe('stateless');
    expect(client.protocolVersion).toBe('2026-07-28');
    expect((await client.listTools()).map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add']));
    expect((await client.callTool('echo', { text: 'stateless' })).content).toEqual([
      { type: 'text', text: 'stateless' },
    ]);
    expect(await client.callTool('add', { a: 1, b: 1 })).toMatchObject({ structuredContent: { sum: 2 } });
    const progress: ProgressParams[] = [];
    await client.callTool('slow', { steps: 2, ms: 5 }, { onProgress: (p) => progress.push(p) });
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    await client.close();
  });
});
