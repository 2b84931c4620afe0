// The toolwire client's `callTool(…, { meta })` on the wire, against servers built with the official SDKs
// (1.x and 2.x, over stdio), whose `meta` tool answers with the `_meta` it got: the caller's keys arrive,
// and the progress token is always the client's own.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/index.js';
import { StdioClientTransport } from '../../src/transports/stdio/index.js';

const META_SERVER = fileURLToPath(new URL('../fixtures/sdk-meta-server.mjs', import.meta.url));
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** The `_meta` the server's `meta` tool saw, from its text answer. */
const seen = (result: { content: unknown[] }) =>
  JSON.parse((result.content[0] as { text: string }).text) as unknown;

describe.each([
  { sdk: '1.x', args: [META_SERVER] },
  { sdk: '2.x', args: [META_SERVER, '--v2'] },
])('toolwire client -> SDK $sdk server over stdio', ({ args }) => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'toolwire-meta', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  });
  afterAll(async () => {
    await client?.close();
  });

  it("sends the call's meta as the request's _meta", async () => {
    const result = await client.callTool(
      'meta',
      {},
      { meta: { traceparent: TRACEPARENT, 'com.example/n': 1 } },
    );
    expect(seen(result)).toEqual({ traceparent: TRACEPARENT, 'com.example/n': 1 });
  });

  it('leaves out a progressToken given in meta: the token is the one onProgress asks for, or none', async () => {
    const meta = { traceparent: TRACEPARENT, progressToken: 'not-mine' };
    expect(seen(await client.callTool('meta', {}, { meta }))).toEqual({ traceparent: TRACEPARENT });
    const withProgress = await client.callTool('meta', {}, { meta, onProgress: () => undefined });
    expect(seen(withProgress)).toEqual({ traceparent: TRACEPARENT, progressToken: expect.any(Number) });
  });
});
