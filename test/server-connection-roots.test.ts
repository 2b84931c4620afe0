// `ServerConnection.listRoots()`: the client's roots asked outside any request (what a gateway with one host
// answers its upstreams with), over a real stdio-like link; refused, with no request sent, for a client
// that cannot be asked.
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { Server, type ServerConnection } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A server's connection to a client made with `options`, once the client has initialized. */
async function connection(options: ClientOptions, connect = true): Promise<ServerConnection> {
  const server = new Server({ name: 's', version: '1.0.0' });
  const [clientEnd, serverEnd] = createLinkedPair();
  const served = await server.connect(serverEnd);
  cleanup.push(() => server.close());
  const initialized = new Promise<void>((resolve) => (served.oninitialized = resolve));
  if (!connect) return served;
  const client = new Client({ name: 'c', version: '1.0.0' }, options);
  await client.connect(clientEnd);
  cleanup.push(() => client.close());
  await initialized;
  return served;
}

describe('ServerConnection.listRoots', () => {
  it("lists a handshake-era client's roots outside any request", async () => {
    const served = await connection({
      protocolVersion: '2025-11-25',
      roots: [{ uri: 'file:///a', name: 'a' }],
    });
    expect(await served.listRoots()).toEqual({ roots: [{ uri: 'file:///a', name: 'a' }] });
  });

  it('refuses a client that did not declare roots, and one that has not initialized', async () => {
    const plain = await connection({ protocolVersion: '2025-11-25' });
    await expect(plain.listRoots()).rejects.toMatchObject({
      code: 'CAPABILITY_NOT_SUPPORTED',
      message: 'The client did not declare the roots capability, so roots/list cannot be sent',
    });
    const fresh = await connection({}, false);
    await expect(fresh.listRoots()).rejects.toMatchObject({
      code: 'CAPABILITY_NOT_SUPPORTED',
      message: 'The client has not initialized, so roots/list cannot be sent',
    });
  });
});
