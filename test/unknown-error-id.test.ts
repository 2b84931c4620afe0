// The `id` of an error that answers no request it could read (unparsable JSON, an invalid message, a
// batch), before `initialize`: JSON-RPC 2.0 and every revision before 2025-11-25 require it (`null` when
// unknown), and the client's revision is not known yet, so it is `null` on stdio and in memory alike, as
// on HTTP. After the handshake it follows the revision (`test/wire.test.ts`).
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonRpcMessage } from '../src/index.js';
import type { Server } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { FIXTURE } from './_setup.js';
import { RawWire } from './_wire.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const invalid = (message: string) => ({
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: expect.stringContaining(message) as unknown },
});

describe('an error with no request id, before initialize', () => {
  it('has "id": null on stdio', async () => {
    const wire = new RawWire();
    cleanup.push(() => wire.close());
    wire.write('not json');
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) as unknown },
    });
    wire.send({ jsonrpc: '2.0', method: 5 });
    expect(await wire.next()).toEqual(invalid('Invalid request'));
    wire.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(await wire.next()).toEqual(invalid('JSON-RPC batches are not supported'));
    expect(await wire.call(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('has "id": null in memory', async () => {
    const mod = (await import(FIXTURE)) as { default: () => Server };
    const server = mod.default();
    cleanup.push(() => server.close());
    const [clientEnd, serverEnd] = createLinkedPair();
    await server.connect(serverEnd);
    const received: JsonObject[] = [];
    const arrived: (() => void)[] = [];
    clientEnd.onmessage = (message) => {
      received.push(message as JsonObject);
      arrived.shift()?.();
    };
    await clientEnd.start();
    const next = async (message: unknown) => {
      const answered = new Promise<void>((resolve) => arrived.push(resolve));
      await clientEnd.send(message as JsonRpcMessage);
      await answered;
      return received.at(-1);
    };
    expect(await next({ jsonrpc: '2.0', method: 5 })).toEqual(invalid('Invalid request'));
    expect(await next([{ jsonrpc: '2.0', id: 1, method: 'ping' }])).toEqual(
      invalid('JSON-RPC batches are not supported'),
    );
    expect(await next({ jsonrpc: '2.0', id: 2, method: 'ping' })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
  });
});
