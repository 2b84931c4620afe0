// The client follows a task at the server's pollInterval kept within bounds: a server that asks to be
// polled every millisecond (or at 0 ms, or at more than a timer holds) is polled every 50 ms at most.
import { describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { Server, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

describe('following a task', () => {
  it('polls no faster than every 50 ms, whatever the server asks', async () => {
    const server = new Server({ name: 'eager', version: '1.0.0' }, { tasks: { pollIntervalMs: 1 } });
    server.tool('slow', { task: 'required' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return text('done');
    });
    const [clientEnd, serverEnd] = createLinkedPair();
    let polls = 0;
    const send = clientEnd.send.bind(clientEnd);
    clientEnd.send = (message) => {
      if (!Array.isArray(message) && 'method' in message && message.method === 'tasks/get') polls += 1;
      return send(message);
    };
    await server.connect(serverEnd);
    const client = new Client({ name: 'poller', version: '1.0.0' }, { protocolVersion: '2025-11-25' });
    await client.connect(clientEnd);
    try {
      const result = await client.callTool('slow');
      expect(result.content[0]).toMatchObject({ text: 'done' });
      // 1 s of work at 50 ms: ≈20 polls (the server's 1 ms made ≈700).
      expect(polls).toBeGreaterThan(2);
      expect(polls).toBeLessThanOrEqual(30);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
