// A closed connection is garbage at once: nothing of the connection's stays reachable after close. The
// request timer of a peer is kept (unref'd) between requests; before a closed peer dropped it, a connection
// that had made a request stayed in memory until that request's deadline (60 s by default) — ≈10 KB per
// connection, 200 MB after 20,000 connections opened and closed within a minute. And a closed server's
// shutdown reason (an Error) kept, in its unformatted stack, the objects of the frames that closed it.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { linkServer } from './_setup.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Resolves true once `make()`'s object is collected (a FinalizationRegistry: a WeakRef keeps its target for the job). */
async function collected(make: () => Promise<object>): Promise<boolean> {
  let gone = false;
  const registry = new FinalizationRegistry<string>(() => (gone = true));
  registry.register(await make(), 'watched');
  for (let i = 0; i < 10 && !gone; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return gone;
}

describe.each(['2025-11-25', '2026-07-28'] as const)('a closed connection (%s)', (protocolVersion) => {
  it('is collected at once, not held by its request timer until the deadline', async () => {
    const server = new Server({ name: 'closed', version: '1.0.0' });
    server.tool('echo', {}, () => text('hi'));
    const closedClient = async (): Promise<object> => {
      const connected = await linkServer(server, { protocolVersion });
      const result = await connected.client.callTool('echo', {}, { timeout: 600_000 });
      expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
      await connected.client.close(); // the client only: the server closes after the check
      return connected.client;
    };
    expect(await collected(closedClient)).toBe(true);
    await server.close();
  });

  it('is collected when the code that held it closed the server too', async () => {
    const server = new Server({ name: 'closed', version: '1.0.0' });
    server.tool('echo', {}, () => text('hi'));
    const closedBoth = async (): Promise<object> => {
      const connected = await linkServer(server, { protocolVersion });
      await connected.client.callTool('echo', {});
      await connected.close(); // the client, then the server: its shutdown reason is made in here
      return connected.client;
    };
    // The server lives on (as one kept for a restart would): its shutdown reason must keep nothing of
    // the frames that awaited `close()`.
    expect(await collected(closedBoth)).toBe(true);
    expect(server).toBeDefined();
  });
});
