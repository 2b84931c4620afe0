// The toolwire client over HTTP against the toolwire server: a session the server ended is replaced.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { Server } from '../src/server/index.js';
import { serveHttp, type HttpServerHandle } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';

let handle: HttpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

describe('Streamable HTTP session expiry', () => {
  it('re-initializes transparently on a 404 and keeps the negotiated revision', async () => {
    const mod = (await import(new URL('./fixtures/http-server.mjs', import.meta.url).href)) as {
      default: () => Server;
    };
    handle = await serveHttp(mod.default(), { port: 0 });
    const transport = new StreamableHttpClientTransport({ url: handle.url });
    const client = new Client({ name: 'expiry', version: '1' }, { protocolVersion: '2025-06-18' });
    await client.connect(transport);
    const first = transport.sessionId;
    expect((await client.callTool('echo', { text: 'a' })).content).toEqual([{ type: 'text', text: 'a' }]);

    await handle.handler.sweep(Date.now() + 24 * 3600_000); // the server ends every session
    expect(handle.handler.sessionCount).toBe(0);

    expect((await client.callTool('echo', { text: 'b' })).content).toEqual([{ type: 'text', text: 'b' }]);
    expect(transport.sessionId).toBeDefined();
    expect(transport.sessionId).not.toBe(first);
    expect(transport.protocolVersion).toBe('2025-06-18');
    expect(handle.handler.sessionCount).toBe(1);
    await client.close();
    await expect.poll(() => handle!.handler.sessionCount).toBe(0); // DELETE ended the new one
  });
});
