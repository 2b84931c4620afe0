// The client's tool list against servers that change it, over the in-memory pair: results are checked
// against the tool's current outputSchema however the list changed (the check was skipped whenever the
// list had been dropped), and concurrent listTools() calls share a fetch that none of them owns.
import { describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { Peer } from '../src/protocol/engine/peer.js';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

type Handlers = Record<string, (params: JsonObject, peer: Peer) => JsonObject | Promise<JsonObject>>;

interface Fake {
  client: Client;
  peer: Peer;
  /** The methods of the requests and notifications the server received after the handshake, in order. */
  received: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

async function fakeServer(handlers: Handlers, options: ClientOptions = {}): Promise<Fake> {
  const [clientEnd, serverEnd] = createLinkedPair();
  const peer = new Peer();
  const received: string[] = [];
  peer.setRequestHandler('initialize', () => ({
    protocolVersion: '2025-06-18',
    capabilities: { tools: { listChanged: true } },
    serverInfo: { name: 'fake', version: '0' },
  }));
  for (const [method, handler] of Object.entries(handlers))
    peer.setRequestHandler(method, (p) => handler(p, peer));
  await peer.connect(serverEnd);
  const deliver = serverEnd.onmessage;
  serverEnd.onmessage = (message) => {
    const { method } = message as JsonObject;
    if (typeof method === 'string' && method !== 'initialize' && method !== 'notifications/initialized') {
      received.push(method);
    }
    deliver?.(message);
  };
  const client = new Client({ name: 'c', version: '1' }, { protocolVersion: '2025-06-18', ...options });
  await client.connect(clientEnd);
  return { client, peer, received, [Symbol.asyncDispose]: () => client.close() };
}

const TYPED = {
  name: 'typed',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
};
const LISTED = { tools: [TYPED] };
const WRONG = { content: [], structuredContent: { n: 'not a number' } };
const MISMATCH = { name: 'ClientError', code: 'OUTPUT_SCHEMA_MISMATCH' };
const changed = (peer: Peer) => peer.notify('notifications/tools/list_changed');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('callTool checks structuredContent against the current outputSchema', () => {
  it('after list_changed sent just before the result', async () => {
    await using fake = await fakeServer({
      'tools/list': () => LISTED,
      'tools/call': async (_, peer) => {
        await changed(peer);
        return WRONG;
      },
    });
    await fake.client.listTools();
    await expect(fake.client.callTool('typed')).rejects.toMatchObject(MISMATCH);
    await expect(fake.client.callTool('typed')).rejects.toMatchObject(MISMATCH);
  });

  it('without listTools() first: the list is fetched once, for every call waiting', async () => {
    await using fake = await fakeServer({ 'tools/list': () => LISTED, 'tools/call': () => WRONG });
    const calls = await Promise.allSettled([1, 2, 3].map(() => fake.client.callTool('typed')));
    expect(calls).toEqual(
      calls.map(() => ({ status: 'rejected', reason: expect.objectContaining(MISMATCH) })),
    );
    expect(fake.received.filter((m) => m === 'tools/list')).toEqual(['tools/list']);
  });

  it('after list_changed sent right after the tools/list answer', async () => {
    await using fake = await fakeServer({
      'tools/list': (_, peer) => {
        setTimeout(() => void changed(peer), 0);
        return LISTED;
      },
      'tools/call': () => WRONG,
    });
    await fake.client.listTools();
    await sleep(20);
    await expect(fake.client.callTool('typed')).rejects.toMatchObject(MISMATCH);
  });

  it("against the tool's new definition, which list_changed announced", async () => {
    let version = 1;
    await using fake = await fakeServer({
      'tools/list': () =>
        version === 1 ? LISTED : { tools: [{ ...TYPED, outputSchema: { type: 'object', properties: {} } }] },
      'tools/call': async (_, peer) => {
        if (version === 1) {
          version = 2;
          await changed(peer);
        }
        return WRONG;
      },
    });
    await fake.client.listTools();
    await expect(fake.client.callTool('typed')).resolves.toMatchObject(WRONG);
  });

  it("refuses structuredContent when the list to check it with cannot be fetched; the call's abort ends the wait", async () => {
    let list: () => Promise<JsonObject> = () => Promise.reject(new Error('list broken'));
    await using fake = await fakeServer({ 'tools/list': () => list(), 'tools/call': () => WRONG });
    await expect(fake.client.callTool('typed')).rejects.toMatchObject({
      ...MISMATCH,
      message: expect.stringContaining('cannot be checked: tools/list failed'),
    });
    list = () => new Promise(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort('enough'), 50);
    await expect(fake.client.callTool('typed', {}, { signal: controller.signal })).rejects.toMatchObject({
      code: 'REQUEST_CANCELLED',
    });
  });

  it('keeps a listed list up to date on list_changed without listeners (the README says it refreshes)', async () => {
    await using fake = await fakeServer({ 'tools/list': () => LISTED, 'tools/call': () => WRONG });
    await fake.client.listTools();
    await changed(fake.peer);
    await expect.poll(() => fake.received).toEqual(['tools/list', 'tools/list']);
  });
});

describe('listTools() called concurrently', () => {
  it("one caller's abort or short timeout fails that caller only", async () => {
    await using fake = await fakeServer({ 'tools/list': () => sleep(300).then(() => LISTED) });
    const controller = new AbortController();
    const a = fake.client.listTools({ signal: controller.signal });
    const b = fake.client.listTools();
    const c = fake.client.listTools({ timeout: 100 });
    const d = fake.client.listTools({ timeout: 10_000 });
    setTimeout(() => controller.abort('gone'), 50);
    const outcomes = await Promise.allSettled([a, b, c, d]);
    expect(
      outcomes.map((o) =>
        o.status === 'fulfilled' ? o.value.map((t) => t.name) : (o.reason as { code: string }).code,
      ),
    ).toEqual(['REQUEST_CANCELLED', ['typed'], 'REQUEST_TIMEOUT', ['typed']]);
    // One fetch, not cancelled: others still waited for it.
    expect(fake.received).toEqual(['tools/list']);
  });

  it('cancels the shared fetch once every caller gave up, and the next caller fetches again', async () => {
    let slow = true;
    await using fake = await fakeServer({
      'tools/list': () => (slow ? sleep(300).then(() => LISTED) : LISTED),
    });
    const first = new AbortController();
    const a = fake.client.listTools({ signal: first.signal });
    const b = fake.client.listTools({ timeout: 50 });
    setTimeout(() => first.abort('gone'), 20);
    await expect(a).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
    await expect(b).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    await expect.poll(() => fake.received).toEqual(['tools/list', 'notifications/cancelled']);
    slow = false;
    await expect(fake.client.listTools()).resolves.toMatchObject([{ name: 'typed' }]);
  });

  it("times each response out on the caller's timeout: a listing of slow pages is not one timeout", async () => {
    await using fake = await fakeServer({
      'tools/list': (params) =>
        sleep(60).then(() =>
          params.cursor === undefined
            ? { tools: [TYPED], nextCursor: 'p2' }
            : { tools: [{ ...TYPED, name: 'b' }] },
        ),
    });
    await expect(fake.client.listTools({ timeout: 100 })).resolves.toMatchObject([
      { name: 'typed' },
      { name: 'b' },
    ]);
  });
});
