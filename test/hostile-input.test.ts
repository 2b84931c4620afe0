// Input built to hurt, over stdio (a real server process): catastrophic patterns, deep nesting, big
// uniqueItems arrays. Each gets a clear answer at once, and the server goes on answering.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/hostile-input-server.mjs', import.meta.url));

/** A tools/call request line whose `arguments` carry `value` (JSON text) under `key`. */
const callLine = (id: number, name: string, key: string, value: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{"${key}":${value}}}}`;

const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** The most memory the process has held so far (its resident set's high-water mark), in MB. */
async function peakMegabytes(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmHWM in /proc/${String(pid)}/status`);
  return Number(kilobytes) / 1024;
}

async function open(): Promise<RawWire> {
  const wire = new RawWire(FIXTURE);
  await wire.initialize();
  return wire;
}

describe('hostile input over stdio', () => {
  it('answers a catastrophic pattern at once, and the next call too', async () => {
    await using wire = await open();
    const started = performance.now();
    wire.write(callLine(1, 'redos', 'word', JSON.stringify(`${'a'.repeat(40)}!`)));
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [
          { type: 'text', text: 'Invalid arguments for tool redos: /word must match pattern "^(a+)+$"' },
        ],
        isError: true,
      },
    });
    expect(await wire.call(2, 'tools/call', { name: 'redos', arguments: { word: 'aaaa' } })).toMatchObject({
      result: { content: [{ type: 'text', text: 'matched aaaa' }] },
    });
    // A backtracking engine takes hours over 40 characters; 2 s is all margin for a loaded host.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  // Up to 1024 levels the line is parsed and the engine answers with the request's id; deeper lines are
  // refused unparsed (below).
  it('refuses a 1,000-deep argument with -32602, and answers the next call', async () => {
    await using wire = await open();
    for (const [id, tool] of [
      [1, 'tree'],
      [2, 'anything'],
      [3, 'zod'],
    ] as const) {
      wire.write(callLine(id, tool, 'node', nestedArrays(1_000)));
      expect(await wire.next()).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32602, message: 'Invalid params: the request is nested deeper than 128 levels' },
      });
    }
    expect(await wire.call(4, 'tools/call', { name: 'tree', arguments: { node: [[], [[]]] } })).toMatchObject(
      {
        result: { content: [{ type: 'text', text: '[[],[[]]]' }] },
      },
    );
  });

  it('answers arguments nested deeper than 64 levels with an isError result, as other invalid arguments', async () => {
    await using wire = await open();
    for (const [id, tool] of [
      [1, 'tree'],
      [2, 'anything'],
      [3, 'zod'],
    ] as const) {
      wire.write(callLine(id, tool, tool === 'zod' ? 'value' : 'node', nestedArrays(100)));
      expect(await wire.next()).toEqual({
        jsonrpc: '2.0',
        id,
        result: {
          content: [
            {
              type: 'text',
              text: `Invalid arguments for tool ${tool}: must NOT be nested deeper than 64 levels`,
            },
          ],
          isError: true,
        },
      });
    }
    wire.write(callLine(4, 'tree', 'node', nestedArrays(63))); // 63 levels, 64 with the arguments object
    expect(await wire.next()).toMatchObject({ id: 4, result: { content: [{ type: 'text' }] } });
  });

  it('refuses other requests nested deeper than 128 levels with -32602', async () => {
    await using wire = await open();
    wire.write(
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":${nestedArrays(200)}}}}`,
    );
    expect(await wire.next()).toMatchObject({ id: 1, error: { code: -32602 } });
    expect(await wire.call(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('refuses a million-deep line before parsing it, with little memory, and answers the next call', async () => {
    await using wire = await open();
    const before = await peakMegabytes(wire.child.pid);
    for (const line of [nestedArrays(1_000_000), callLine(1, 'tree', 'node', nestedArrays(1_000_000))]) {
      wire.write(line);
      expect(await wire.next()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32700, message: 'Parse error: JSON nested deeper than 1024 levels' },
      });
    }
    expect(await wire.call(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    // Parsing the two 2 MB lines raised the server's peak by ≈170 MB before the engine counted their
    // levels; refused unparsed, by ≈14 MB (the lines as bytes and as text).
    expect((await peakMegabytes(wire.child.pid)) - before).toBeLessThan(60);
  });

  it('checks uniqueItems over 30,000 objects in well under a second', async () => {
    await using wire = await open();
    const list = Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `item ${i}` }));
    const started = performance.now();
    expect(await wire.call(1, 'tools/call', { name: 'unique', arguments: { list } })).toMatchObject({
      result: { content: [{ type: 'text', text: '30000 distinct' }] },
    });
    // ajv's pairwise comparison took 36 s; ≈50 ms idle, the rest is margin for a loaded 2-core host.
    expect(performance.now() - started).toBeLessThan(3000);
  });
});

describe('resource subscriptions over stdio', () => {
  const PROTOCOL = fileURLToPath(new URL('./fixtures/protocol-server.mjs', import.meta.url));

  it('holds at most 1,000 per session, each URI at most 4,096 characters; past that, a clear refusal', async () => {
    await using wire = new RawWire(PROTOCOL);
    await wire.initialize();
    // Pipelined: 1,000 distinct URIs (nothing checks that a resource exists: a client may subscribe first).
    wire.write(
      Array.from(
        { length: 1000 },
        (_, i) =>
          `{"jsonrpc":"2.0","id":${i},"method":"resources/subscribe","params":{"uri":"test://s/${i}"}}`,
      ).join('\n'),
    );
    for (let i = 0; i < 1000; i++) expect(await wire.next()).toMatchObject({ result: {} });
    expect(await wire.call('again', 'resources/subscribe', { uri: 'test://s/7' })).toMatchObject({
      result: {},
    });
    expect(await wire.call('over', 'resources/subscribe', { uri: 'test://s/1000' })).toMatchObject({
      id: 'over',
      error: { code: -31429, data: { limit: 'subscriptions', max: 1000 } },
    });
    expect(await wire.call('un', 'resources/unsubscribe', { uri: 'test://s/0' })).toMatchObject({
      result: {},
    });
    expect(await wire.call('now', 'resources/subscribe', { uri: 'test://s/1000' })).toMatchObject({
      result: {},
    });
    const long = `test://${'x'.repeat(4090)}`;
    expect(await wire.call('long', 'resources/subscribe', { uri: long })).toMatchObject({
      error: { code: -32602 },
    });
  });

  it('holds at most 256 Ki characters of subscribed URIs per session; past that, a clear refusal', async () => {
    await using wire = new RawWire(PROTOCOL);
    await wire.initialize();
    // URIs of 4,096 characters each (the longest): 64 of them are 262,144 characters, the limit.
    const uri = (i: number) => `test://${String(i).padStart(4, '0')}/`.padEnd(4096, 'x');
    wire.write(
      Array.from({ length: 64 }, (_, i) =>
        JSON.stringify({ jsonrpc: '2.0', id: i, method: 'resources/subscribe', params: { uri: uri(i) } }),
      ).join('\n'),
    );
    for (let i = 0; i < 64; i++) expect(await wire.next()).toMatchObject({ id: i, result: {} });
    expect(await wire.call('again', 'resources/subscribe', { uri: uri(7) })).toMatchObject({ result: {} });
    expect(await wire.call('over', 'resources/subscribe', { uri: 'test://short' })).toMatchObject({
      id: 'over',
      error: { code: -31429, data: { limit: 'subscriptions', maxCharacters: 262_144 } },
    });
    expect(await wire.call('un', 'resources/unsubscribe', { uri: uri(0) })).toMatchObject({ result: {} });
    expect(await wire.call('now', 'resources/subscribe', { uri: uri(64) })).toMatchObject({ result: {} });
    expect(await wire.call('full', 'resources/subscribe', { uri: 'test://short' })).toMatchObject({
      error: { code: -31429 },
    });
  });
});
