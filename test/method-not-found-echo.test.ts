// A request whose method is 1 MiB long is answered -32601 with the method cut to 200 characters and "…",
// by a server and by a client (the engine answers both): the whole name was echoed back before.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { rawPeer } from './_raw-peer.js';

const LONG = 'm'.repeat(1024 * 1024);
const CUT = `Method not found: ${'m'.repeat(200)}…`;

describe('-32601 for a method 1 MiB long', () => {
  it('a server echoes 200 characters of it', async () => {
    await using peer = await rawPeer(new Server({ name: 's', version: '1.0.0' }), '2025-11-25');
    const answer = await peer.request(LONG);
    expect(answer.error).toEqual({ code: -32601, message: CUT });
  });

  it('a client echoes 200 characters of it', async () => {
    const [clientEnd, serverEnd] = createLinkedPair();
    const answers: unknown[] = [];
    serverEnd.onmessage = (message) => {
      const m = message as { id?: unknown; method?: string; params?: { protocolVersion?: string } };
      if (m.method === 'initialize') {
        void serverEnd.send({
          jsonrpc: '2.0',
          id: m.id as number,
          result: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            serverInfo: { name: 'raw', version: '1' },
          },
        });
      } else if (m.method === undefined) answers.push(message);
    };
    await serverEnd.start();
    const client = new Client({ name: 'c', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    await client.connect(clientEnd);
    try {
      await serverEnd.send({ jsonrpc: '2.0', id: 'long', method: LONG });
      await expect.poll(() => answers).toHaveLength(1);
      expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 'long', error: { code: -32601, message: CUT } });
    } finally {
      await client.close();
    }
  });
});
