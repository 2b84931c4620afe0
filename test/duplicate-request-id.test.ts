// A request id used again while the first request with it still runs: the duplicate is refused with
// -32600 and the first request goes on and is answered. In the engine (every transport: in-memory here)
// and in the HTTP session transport, which routes responses by id (SSE and JSON modes, batches).
import { describe, expect, it } from 'vitest';
import { Server, text } from '../src/server/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { SseReader } from './_sse.js';
import { closeServedAfterEach, open, post, served, start } from './_http.js';

closeServedAfterEach();

/** A tool that waits until the test opens its gate; `entered` resolves when a call is inside. */
function gated(server: Server): { entered: Promise<void>; open: () => void } {
  let open!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const inside = new Promise<void>((resolve) => (entered = resolve));
  server.tool('gated', {}, async () => {
    entered();
    await gate;
    return text('through');
  });
  return { entered: inside, open };
}

const call = (id: number | string, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('a request id already in use (engine)', () => {
  it('answers the duplicate with -32600 and still answers the first', async () => {
    const server = new Server({ name: 'dup', version: '1' });
    const gate = gated(server);
    server.tool('echo', {}, () => text('echo'));
    const [client, end] = createLinkedPair();
    await server.connect(end);
    const received: unknown[] = [];
    client.onmessage = (message) => received.push(message);
    await client.start();
    await client.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await client.send(call(1, 'gated') as never);
    await gate.entered;
    await client.send(call(1, 'echo') as never);
    await expect.poll(() => received.length).toBe(2);
    expect(received[1]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32600,
        message: 'Invalid request: request id 1 is already in use by a request in progress',
      },
    });
    gate.open();
    await expect.poll(() => received.length).toBe(3);
    expect(received[2]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'through' }] },
    });
    // Once answered, the id is free again.
    await client.send(call(1, 'echo') as never);
    await expect.poll(() => received.length).toBe(4);
    expect(received[3]).toMatchObject({ id: 1, result: { content: [{ text: 'echo' }] } });
    await server.close();
  });
});

describe('a request id already in use (HTTP session)', () => {
  for (const responseMode of ['sse', 'json'] as const) {
    it(`refuses the duplicate POST with 400 and answers the first (${responseMode})`, async () => {
      const { url, server } = await start({ responseMode });
      const gate = gated(server);
      const sid = await open(url);
      const first = post(url, call(1, 'gated'), { 'mcp-session-id': sid });
      await gate.entered;
      const duplicate = await post(url, call(1, 'echo', { text: 'x' }), { 'mcp-session-id': sid });
      expect(duplicate.status).toBe(400);
      expect(await duplicate.json()).toMatchObject({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: 'Invalid request: request id 1 is already in use by a request in progress',
        },
      });
      gate.open();
      const answer = await first;
      expect(answer.status).toBe(200);
      const message =
        responseMode === 'sse'
          ? await new SseReader(answer).nextMessage()
          : ((await answer.json()) as unknown);
      expect(message).toEqual({
        jsonrpc: '2.0',
        id: 1,
        result: { content: [{ type: 'text', text: 'through' }] },
      });
      expect(served.handle!.handler.load).toEqual({ streams: 0, pendingRequests: 0 });
    });
  }

  it('refuses a batch that reuses a running id or names one id twice', async () => {
    const { url, server } = await start({ responseMode: 'json' });
    const gate = gated(server);
    const sid = await open(url, '2025-03-26');
    const first = post(url, call('a', 'gated'), { 'mcp-session-id': sid });
    await gate.entered;
    const ping = (id: string) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const reused = await post(url, [ping('b'), ping('a')], { 'mcp-session-id': sid });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({
      error: { code: -32600, message: /request id "a" is already in use/ },
    });
    const twice = await post(url, [ping('c'), ping('c')], { 'mcp-session-id': sid });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({
      error: { code: -32600, message: /request id "c" appears twice/ },
    });
    gate.open();
    expect(await (await first).json()).toMatchObject({ id: 'a', result: { content: [{ text: 'through' }] } });
    expect(await (await post(url, [ping('b'), ping('c')], { 'mcp-session-id': sid })).json()).toEqual([
      { jsonrpc: '2.0', id: 'b', result: {} },
      { jsonrpc: '2.0', id: 'c', result: {} },
    ]);
  });
});
