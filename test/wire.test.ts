// Wire-level behaviour over stdio: exact bytes in, exact JSON-RPC out.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawWire } from './_wire.js';

const LISTEN_FIXTURE = fileURLToPath(new URL('./fixtures/listen-server.mjs', import.meta.url));

describe('stdio wire', () => {
  it('answers malformed JSON with -32700 and keeps the connection', async () => {
    await using wire = new RawWire();
    wire.write('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(await wire.next()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    expect(await wire.call(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('answers the first 8 lines that are not JSON with -32700, then only the requests', async () => {
    await using wire = new RawWire();
    wire.write('not json\n'.repeat(20));
    wire.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const lines: unknown[] = [];
    for (;;) {
      const line = (await wire.next()) as { id?: unknown };
      if (line.id === 1) break;
      lines.push(line);
    }
    expect(lines).toHaveLength(8);
    for (const line of lines) expect(line).toMatchObject({ error: { code: -32700 } });
    expect(await wire.call(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('refuses requests before initialize but answers ping', async () => {
    await using wire = new RawWire();
    expect(await wire.call(1, 'tools/list')).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(await wire.call(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('answers an unsupported version with its latest and the full initialize result', async () => {
    await using wire = new RawWire();
    expect(await wire.initialize('1999-01-01')).toEqual({
      jsonrpc: '2.0',
      id: 0,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: {
          tools: { listChanged: true },
          logging: {},
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          completions: {},
        },
        serverInfo: { name: 'protocol-fixture', version: '1.0.0', title: 'Protocol fixture' },
        instructions: 'fixture',
      },
    });
  });

  it('refuses a second initialize', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    expect(
      await wire.call(1, 'initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      }),
    ).toMatchObject({
      id: 1,
      error: { code: -32600 },
    });
  });

  it('refuses a request whose id is null', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    wire.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    expect(await wire.next()).toMatchObject({ error: { code: -32600 } });
  });

  it('answers an unknown method with -32601', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    expect(await wire.call(1, 'tools/explode')).toMatchObject({ id: 1, error: { code: -32601 } });
  });

  it('answers malformed tools/call params and bad cursors with -32602', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    expect(await wire.call(1, 'tools/call', { arguments: {} })).toMatchObject({
      id: 1,
      error: { code: -32602 },
    });
    expect(await wire.call(2, 'tools/call', { name: 'echo', arguments: [1] })).toMatchObject({
      id: 2,
      error: { code: -32602 },
    });
    expect(await wire.call(3, 'tools/list', { cursor: 'garbage' })).toMatchObject({
      id: 3,
      error: { code: -32602, message: 'Invalid params: invalid cursor' },
    });
  });

  it('pages tools/list with opaque cursors', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    const first = (await wire.call(1, 'tools/list')) as {
      result: { tools: { name: string }[]; nextCursor: string };
    };
    expect(first.result.tools.map((t) => t.name)).toEqual(['echo', 'add', 'structured_only']);
    const second = (await wire.call(2, 'tools/list', { cursor: first.result.nextCursor })) as {
      result: { tools: { name: string }[]; nextCursor?: string };
    };
    expect(second.result.tools.map((t) => t.name)).toEqual(['bad_output', 'throws', 'all_content']);
    expect(second.result.nextCursor).not.toBe(first.result.nextCursor);
  });

  it('answers every request for a list page with its own id around the same result text', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    wire.send({ jsonrpc: '2.0', id: 'q"1', method: 'tools/list' });
    const first = await wire.nextLine();
    wire.send({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    const second = await wire.nextLine();
    const { result } = JSON.parse(first) as { result: { tools: { name: string }[] } };
    expect(result.tools.map((t) => t.name)).toEqual(['echo', 'add', 'structured_only']);
    expect(first).toBe(JSON.stringify({ jsonrpc: '2.0', id: 'q"1', result }));
    expect(second).toBe(JSON.stringify({ jsonrpc: '2.0', id: 7, result }));
  });

  it('serves a list page that carries a registry change made after it was first served', async () => {
    await using wire = new RawWire(LISTEN_FIXTURE);
    await wire.initialize();
    // Every prompt name, following the cursors (the fixture pages by 3).
    let id = 0;
    const names = async () => {
      const all: string[] = [];
      let cursor: string | undefined;
      do {
        const message = (await wire.call(++id, 'prompts/list', cursor === undefined ? {} : { cursor })) as {
          result: { prompts: { name: string }[]; nextCursor?: string };
        };
        all.push(...message.result.prompts.map((p) => p.name));
        cursor = message.result.nextCursor;
      } while (cursor !== undefined);
      return all;
    };
    const before = await names();
    expect(before).not.toContain('extra_prompt_1');
    const changed = { name: 'change', arguments: { prompts: true } };
    const answers = [await wire.call('change', 'tools/call', changed), await wire.next()];
    expect(answers).toContainEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed' });
    expect(answers).toContainEqual(expect.objectContaining({ id: 'change' }));
    expect(await names()).toEqual([...before, 'extra_prompt_1']);
  });

  it('accepts a JSON-RPC batch from a 2025-03-26 peer and answers with an array', async () => {
    await using wire = new RawWire();
    await wire.initialize('2025-03-26');
    wire.send([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/whatever' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } },
    ]);
    expect(await wire.next()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', result: { content: [{ type: 'text', text: 'x' }] } },
    ]);
  });

  it('refuses a batch from a 2025-06-18 peer', async () => {
    await using wire = new RawWire();
    await wire.initialize('2025-06-18');
    wire.send([{ jsonrpc: '2.0', id: 'a', method: 'ping' }]);
    expect(await wire.next()).toMatchObject({ error: { code: -32600 } });
    expect(await wire.call(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('uses a null id for unreadable requests from pre-2025-11-25 peers and omits it after', async () => {
    await using old = new RawWire();
    await old.initialize('2025-06-18');
    old.write('not json');
    expect(await old.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });
    await using latest = new RawWire();
    await latest.initialize('2025-11-25');
    latest.write('not json');
    expect(await latest.next()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: expect.any(String) },
    });
  });

  it('bounds a huge line, says so, and keeps serving', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    wire.write(
      JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', params: { pad: 'x'.repeat(5 * 1024 * 1024) } }),
    );
    expect(await wire.next()).toMatchObject({ error: { code: -32600 } });
    expect(await wire.call(10, 'ping')).toEqual({ jsonrpc: '2.0', id: 10, result: {} });
  });

  it('ignores a cancellation for an unknown request', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } });
    expect(await wire.call(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('sends no response for a cancelled call', async () => {
    await using wire = new RawWire();
    await wire.initialize();
    wire.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait_for_cancel' } });
    wire.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 5, reason: 'stop' },
    });
    // Until the handler has seen the cancellation and returned, every line is the answer to the request just
    // sent, never a response to id 5; after that, so is the ping's.
    let id = 6;
    await expect
      .poll(async () => {
        const answer = (await wire.call(id, 'tools/call', { name: 'last_cancel' })) as { id: unknown };
        expect(answer.id).toBe(id++);
        return answer;
      })
      .toMatchObject({ result: { content: [{ type: 'text', text: 'stop' }] } });
    expect(await wire.call(id, 'ping')).toEqual({ jsonrpc: '2.0', id, result: {} });
  });

  it('exits when its stdin closes', async () => {
    const wire = new RawWire();
    await wire.initialize();
    wire.child.stdin.end();
    expect(await wire.exited).toBe(0);
  });
});
