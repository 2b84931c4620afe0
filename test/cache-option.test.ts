// The server's `cache` option: the stateless era's cache hint (`ttlMs`, `cacheScope`) that list, read and
// discover results carry. It goes on the wire as given, so a value the 2026-07-28 schema does not allow
// (`ttlMs` below 0 — `@minimum 0` —, not finite, or a scope other than public and private) is refused
// when the server is made, with a TypeError, and nothing bad is ever sent.
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonRpcMessage } from '../src/index.js';
import { Server, type ServerOptions } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const INFO = { name: 'cached', version: '1.0.0' };
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** The result of one stateless-era request to `server`, over the in-memory pair. */
async function statelessResult(server: Server, method: string): Promise<JsonObject> {
  const [clientEnd, serverEnd] = createLinkedPair();
  await server.connect(serverEnd);
  cleanup.push(() => server.close());
  const answer = new Promise<JsonObject>((resolve) => {
    clientEnd.onmessage = (message) => resolve(message as JsonObject);
  });
  await clientEnd.start();
  const request = { jsonrpc: '2.0', id: 1, method, params: { _meta: META } };
  await clientEnd.send(request as JsonRpcMessage);
  return (await answer).result as JsonObject;
}

describe('the cache option', () => {
  it.each([
    [{ ttlMs: -5 }, /cache\.ttlMs must be a finite number of milliseconds, 0 or more \(got -5\)/],
    [{ ttlMs: Number.POSITIVE_INFINITY }, /cache\.ttlMs must be a finite number/],
    [{ ttlMs: Number.NaN }, /cache\.ttlMs must be a finite number of milliseconds, 0 or more \(got NaN\)/],
    [{ ttlMs: '60000' }, /cache\.ttlMs must be a finite number/],
    [{ cacheScope: 'shared' }, /cache\.cacheScope must be "public" or "private" \(got "shared"\)/],
    [null, /cache must be an object/],
    [60_000, /cache must be an object/],
  ])('refuses %j when the server is made, with a TypeError', (cache, words) => {
    const make = () => new Server(INFO, { cache } as unknown as ServerOptions);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(words);
  });

  it('sends what it is given on list, read and discover results', async () => {
    const server = new Server(INFO, { cache: { ttlMs: 1500, cacheScope: 'private' } });
    server.tool('noop', {}, () => ({ content: [] }));
    for (const method of ['tools/list', 'server/discover']) {
      expect(await statelessResult(server, method)).toMatchObject({
        resultType: 'complete',
        ttlMs: 1500,
        cacheScope: 'private',
      });
    }
  });

  it('takes 0, and a scope alone (ttlMs 0 then)', async () => {
    expect(await statelessResult(new Server(INFO, { cache: { ttlMs: 0 } }), 'server/discover')).toMatchObject(
      { ttlMs: 0, cacheScope: 'public' },
    );
    expect(
      await statelessResult(new Server(INFO, { cache: { cacheScope: 'private' } }), 'server/discover'),
    ).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });
});
