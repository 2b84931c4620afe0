// The official SDK clients (1.x and 2.x) against the toolwire Streamable HTTP server, stateful and
// stateless, SSE and JSON responses, and the SDK 1.x legacy SSE client against the legacy endpoints.
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Server } from '../../src/server/index.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../../src/transports/http/index.js';
import { FIXTURE_TOOL_NAMES } from './_helpers.js';

const FIXTURE = new URL('../fixtures/http-server.mjs', import.meta.url).href;
const ALL = [...FIXTURE_TOOL_NAMES, 'reconnect'];

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

async function start(options: ServeHttpOptions): Promise<string> {
  const mod = (await import(FIXTURE)) as { default: () => Server };
  handle = await serveHttp(mod.default(), { port: 0, ...options });
  return handle.url;
}

const MODES: ReadonlyArray<{ title: string; options: ServeHttpOptions }> = [
  { title: 'stateful, SSE responses', options: {} },
  { title: 'stateful, JSON responses', options: { responseMode: 'json' } },
  { title: 'stateless, SSE responses', options: { stateless: true } },
  { title: 'stateless, JSON responses', options: { stateless: true, responseMode: 'json' } },
];

describe.each(MODES)('SDK 1.x client -> toolwire HTTP server ($title)', ({ options }) => {
  it('lists every tool, calls tools with structured output and progress', async () => {
    const url = await start(options);
    const client = new ClientV1({ name: 'sdk-v1-http', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(url)));
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names).toEqual(ALL);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'héllo' } })).toEqual({
      content: [{ type: 'text', text: 'héllo' }],
    });
    expect(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).toMatchObject({
      structuredContent: { sum: 3 },
    });
    if (options.responseMode !== 'json') {
      const progress: Progress[] = [];
      await client.callTool({ name: 'slow', arguments: { steps: 2, ms: 5 } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(progress.map((p) => p.progress)).toEqual(expect.arrayContaining([1]));
    }
    if (!options.stateless) await (client.transport as HttpV1).terminateSession();
    await client.close();
    expect(handle!.handler.sessionCount).toBe(0);
  });
});

describe('SDK 1.x client -> toolwire HTTP server, server-to-client requests', () => {
  it('answers an elicitation sent during a call on the call stream', async () => {
    const url = await start({});
    const client = new ClientV1(
      { name: 'sdk-v1-http', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Grace' } }));
    await client.connect(new HttpV1(new URL(url)));
    expect(await client.callTool({ name: 'ask' })).toEqual({
      content: [{ type: 'text', text: 'accept:Grace' }],
    });
    await client.close();
  });

  it('resumes a call whose stream the tool closed (SSE polling)', async () => {
    const url = await start({ retryMs: 100 });
    const client = new ClientV1({ name: 'sdk-v1-http', version: '1.0.0' });
    await client.connect(new HttpV1(new URL(url)));
    expect(await client.callTool({ name: 'reconnect' })).toEqual({
      content: [{ type: 'text', text: 'reconnected' }],
    });
    await client.close();
  });
});

describe.each(MODES)('SDK 2.x client -> toolwire HTTP server ($title)', ({ options }) => {
  it('lists and calls tools', async () => {
    const url = await start(options);
    const client = new ClientV2({ name: 'sdk-v2-http', version: '2.0.0' });
    await client.connect(new HttpV2(new URL(url)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'v2' } })).toMatchObject({
      content: [{ type: 'text', text: 'v2' }],
    });
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } })).toMatchObject({
      structuredContent: { sum: 4 },
    });
    await client.close();
  });
});

describe('SDK 1.x legacy SSE client -> toolwire legacy endpoints', () => {
  it('connects through /sse and calls tools', async () => {
    const url = await start({});
    const client = new ClientV1({ name: 'sdk-v1-sse', version: '1.0.0' });
    await client.connect(new SSEClientTransport(new URL('/sse', url)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).slice(0, 3)).toEqual(['echo', 'add', 'structured_only']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'old' } })).toEqual({
      content: [{ type: 'text', text: 'old' }],
    });
    await client.close();
  });
});
