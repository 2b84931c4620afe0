// A Client connecting through FallbackHttpClientTransport to a port where nothing listens: its connect
// rejects with the transport's CONNECTION_CLOSED error naming the network failure (`connect ECONNREFUSED
// …`), that failure as its cause. Before, the transport closed before the send's rejection reached the
// engine, and connect rejected with the engine's bare "The connection closed" (no cause): the gateway and
// the CLI each caught the transport's report through onError to say why.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { TransportError } from '../src/transports/transport-error.js';
import { FallbackHttpClientTransport } from '../src/transports/http-client/index.js';

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The error and its causes, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at !== undefined && chain.length < 10; at = (at as { cause?: unknown }).cause) {
    chain.push(at);
    if (!(at instanceof Error)) break;
  }
  return chain;
}

describe('FallbackHttpClientTransport, nothing listening on the port', () => {
  for (const protocolVersion of ['auto', '2025-11-25'] as const) {
    it(`${protocolVersion}: connect rejects naming ECONNREFUSED, with the network error as its cause`, async () => {
      const port = await closedPort();
      const url = `http://127.0.0.1:${port}/mcp`;
      const reported: Error[] = [];
      const client = new Client(
        { name: 'c', version: '1.0.0' },
        { protocolVersion, onError: (error) => reported.push(error) },
      );
      const transport = new FallbackHttpClientTransport({ url });
      const error = await client.connect(transport).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(TransportError);
      expect(error).toMatchObject({ code: 'CONNECTION_CLOSED' });
      expect((error as Error).message).toBe(
        `The connection closed: POST ${url} failed: fetch failed (connect ECONNREFUSED 127.0.0.1:${port})`,
      );
      expect(causes(error).map((cause) => (cause as { code?: unknown }).code)).toContain('ECONNREFUSED');
      // Reported once through onError, the same error; any later send rejects with it too.
      expect(reported).toEqual([error]);
      await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toBe(
        error,
      );
      await client.close();
    });
  }
});
