import { describe, expect, it, vi } from 'vitest';
import { LocalErrorCode } from '../protocol/errors.js';
import { TransportError, createLinkedPair } from './in-memory.js';

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createLinkedPair', () => {
  it('delivers messages asynchronously and in order, both ways', async () => {
    const [client, server] = createLinkedPair();
    const atServer: unknown[] = [];
    const atClient: unknown[] = [];
    server.onmessage = (message) => atServer.push(message);
    client.onmessage = (message) => atClient.push(message);
    await Promise.all([client.start(), server.start()]);
    for (let i = 0; i < 5; i++) void client.send({ jsonrpc: '2.0', id: i, method: 'm' });
    void server.send({ jsonrpc: '2.0', id: 0, result: {} });
    expect(atServer).toEqual([]);
    expect(atClient).toEqual([]);
    await settle();
    expect(atServer).toEqual([0, 1, 2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, method: 'm' })));
    expect(atClient).toEqual([{ jsonrpc: '2.0', id: 0, result: {} }]);
  });

  it('passes messages through a JSON round trip', async () => {
    const [client, server] = createLinkedPair();
    const received: unknown[] = [];
    server.onmessage = (message) => received.push(message);
    await server.start();
    const params = { kept: 1, dropped: undefined, when: new Date(0), nested: { list: [1, undefined] } };
    await client.send({ jsonrpc: '2.0', method: 'm', params });
    await settle();
    expect(received).toEqual([
      {
        jsonrpc: '2.0',
        method: 'm',
        params: { kept: 1, when: '1970-01-01T00:00:00.000Z', nested: { list: [1, null] } },
      },
    ]);
    const [message] = received as Array<{ params: { nested: unknown } }>;
    expect(Object.keys(message!.params)).not.toContain('dropped');
    expect(message!.params.nested).not.toBe(params.nested);
  });

  it('queues messages sent before the receiver starts and delivers them on start, in order', async () => {
    const [client, server] = createLinkedPair();
    const received: unknown[] = [];
    server.onmessage = (message) => received.push(message);
    await client.send({ jsonrpc: '2.0', method: 'first' });
    await client.send({ jsonrpc: '2.0', method: 'second' });
    await settle();
    expect(received).toEqual([]);
    await server.start();
    await client.send({ jsonrpc: '2.0', method: 'third' });
    await settle();
    expect(received.map((m) => (m as { method: string }).method)).toEqual(['first', 'second', 'third']);
  });

  it('closing either end closes both, each onclose once, and drops undelivered messages', async () => {
    const [client, server] = createLinkedPair();
    const clientClosed = vi.fn();
    const serverClosed = vi.fn();
    const onmessage = vi.fn();
    client.onclose = clientClosed;
    server.onclose = serverClosed;
    server.onmessage = onmessage;
    await Promise.all([client.start(), server.start()]);
    void client.send({ jsonrpc: '2.0', method: 'in flight' });
    await server.close();
    await client.close();
    await server.close();
    await settle();
    expect(clientClosed).toHaveBeenCalledTimes(1);
    expect(serverClosed).toHaveBeenCalledTimes(1);
    expect(onmessage).not.toHaveBeenCalled();
  });

  it('rejects send on a closed transport with CONNECTION_CLOSED', async () => {
    const [client, server] = createLinkedPair();
    await client.close();
    for (const end of [client, server]) {
      const error: unknown = await end.send({ jsonrpc: '2.0', method: 'm' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      expect((error as TransportError).code).toBe(LocalErrorCode.ConnectionClosed);
    }
  });

  it('reports an exception thrown by onmessage through onerror and keeps delivering', async () => {
    const [client, server] = createLinkedPair();
    const received: unknown[] = [];
    const errors: Error[] = [];
    server.onmessage = (message) => {
      received.push(message);
      if (received.length === 1) throw new Error('handler failed');
    };
    server.onerror = (error) => errors.push(error);
    await server.start();
    await client.send({ jsonrpc: '2.0', method: 'a' });
    await client.send({ jsonrpc: '2.0', method: 'b' });
    await settle();
    expect(received).toHaveLength(2);
    expect(errors.map((e) => e.message)).toEqual(['handler failed']);
  });
});
