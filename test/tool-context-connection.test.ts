// `ctx.connection`: the same object for every request of one connection (in memory, a stateful HTTP
// session), another for each other connection, and none for a stateless-era request.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server, text } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A server whose `who` tool names its request's connection: `none`, or `c1`, `c2`, … in order seen. */
function whoServer(): Server {
  const seen: object[] = [];
  const server = new Server({ name: 'who', version: '1.0.0' });
  server.tool('who', {}, (_args, ctx) => {
    if (ctx.connection === undefined) return text('none');
    if (!seen.includes(ctx.connection)) seen.push(ctx.connection);
    return text(`c${seen.indexOf(ctx.connection) + 1}`);
  });
  cleanup.push(() => server.close());
  return server;
}

const who = async (client: Client) => {
  const result = await client.callTool('who', {});
  return (result.content[0] as { text: string }).text;
};

describe('ToolContext.connection', () => {
  it('is one object per in-memory connection, the same for each of its requests', async () => {
    const server = whoServer();
    const clients: Client[] = [];
    for (let i = 0; i < 2; i++) {
      const [clientEnd, serverEnd] = createLinkedPair();
      await server.connect(serverEnd);
      const client = new Client({ name: 'host', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
      await client.connect(clientEnd);
      cleanup.push(() => client.close());
      clients.push(client);
    }
    const [a, b] = clients as [Client, Client];
    expect([await who(a), await who(b), await who(a), await who(b)]).toEqual(['c1', 'c2', 'c1', 'c2']);
  });

  it('is one object per stateful HTTP session, and none for a stateless-era request', async () => {
    const handle = await serveHttp(whoServer(), { port: 0 });
    cleanup.push(() => handle.close());
    const connect = async (protocolVersion: '2025-11-25' | '2026-07-28') => {
      const client = new Client({ name: 'host', version: '1.0.0' }, { protocolVersion });
      await client.connect(new StreamableHttpClientTransport({ url: handle.url }));
      cleanup.push(() => client.close());
      return client;
    };
    const a = await connect('2025-11-25');
    const b = await connect('2025-11-25');
    const stateless = await connect('2026-07-28');
    expect([await who(a), await who(b), await who(a), await who(stateless)]).toEqual([
      'c1',
      'c2',
      'c1',
      'none',
    ]);
  });
});
