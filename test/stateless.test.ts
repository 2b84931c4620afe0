// The stateless era (2026-07-28) on the wire over stdio: no handshake, everything from each request's _meta.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RawWire } from './_wire.js';

const LISTEN_FIXTURE = fileURLToPath(new URL('./fixtures/listen-server.mjs', import.meta.url));

const META = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-stateless', version: '1' },
  ...extra,
});
const SERVER_INFO = { name: 'protocol-fixture', version: '1.0.0', title: 'Protocol fixture' };

describe('stateless era over stdio', () => {
  it('answers server/discover with versions, capabilities, instructions and a cache hint', async () => {
    await using wire = new RawWire();
    expect(await wire.call(1, 'server/discover', { _meta: META() })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
        capabilities: expect.objectContaining({ tools: { listChanged: true } }),
        instructions: 'fixture',
        ttlMs: 0,
        cacheScope: 'public',
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
  });

  it('serves tools/list and tools/call without initialize, with resultType on every result', async () => {
    await using wire = new RawWire();
    const list = (await wire.call(1, 'tools/list', { _meta: META() })) as { result: Record<string, unknown> };
    expect(list.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
    expect((list.result.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'echo',
      'add',
      'structured_only',
    ]);
    expect(
      await wire.call(2, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 }, _meta: META() }),
    ).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: '{"sum":3}' }],
        structuredContent: { sum: 3 },
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
  });

  it('answers every request for a list page with its own id around the same finished result text', async () => {
    await using wire = new RawWire();
    wire.send({ jsonrpc: '2.0', id: 'a"1', method: 'tools/list', params: { _meta: META() } });
    const first = await wire.nextLine();
    wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META() } });
    const second = await wire.nextLine();
    const { result } = JSON.parse(first) as { result: Record<string, unknown> };
    expect(Object.keys(result)).toEqual([
      'resultType',
      'tools',
      'nextCursor',
      'ttlMs',
      'cacheScope',
      '_meta',
    ]);
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
    expect(first).toBe(JSON.stringify({ jsonrpc: '2.0', id: 'a"1', result }));
    expect(second).toBe(JSON.stringify({ jsonrpc: '2.0', id: 2, result }));
  });

  it('serves a finished list page that carries a registry change made after it was first served', async () => {
    await using wire = new RawWire(LISTEN_FIXTURE);
    const names = async (id: number) => {
      const message = (await wire.call(id, 'prompts/list', { _meta: META() })) as {
        result: { resultType: string; prompts: { name: string }[] };
      };
      expect(message.result.resultType).toBe('complete');
      return message.result.prompts.map((p) => p.name);
    };
    const before = await names(1);
    expect(await names(2)).toEqual(before);
    const changed = { name: 'change', arguments: { prompts: true }, _meta: META() };
    expect(await wire.call(3, 'tools/call', changed)).toMatchObject({
      id: 3,
      result: { resultType: 'complete' },
    });
    // The fixture pages prompts by 3: the new prompt is on the first page only if that page is not full.
    const after: string[] = [];
    let cursor: string | undefined;
    let id = 10;
    do {
      const message = (await wire.call(++id, 'prompts/list', {
        _meta: META(),
        ...(cursor ? { cursor } : {}),
      })) as {
        result: { prompts: { name: string }[]; nextCursor?: string };
      };
      after.push(...message.result.prompts.map((p) => p.name));
      cursor = message.result.nextCursor;
    } while (cursor !== undefined);
    expect(after).toContain('extra_prompt_1');
    expect(after.filter((n) => n !== 'extra_prompt_1')).toEqual(expect.arrayContaining(before));
  });

  it('refuses an unsupported version with -32022 naming the supported ones', async () => {
    await using wire = new RawWire();
    const meta = { ...META(), 'io.modelcontextprotocol/protocolVersion': '2099-01-01' };
    expect(await wire.call(1, 'tools/list', { _meta: meta })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28'], requested: '2099-01-01' },
      },
    });
  });

  it('refuses a request without clientCapabilities with -32602', async () => {
    await using wire = new RawWire();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    expect(await wire.call(1, 'tools/list', { _meta: meta })).toMatchObject({
      error: { code: -32602, message: expect.stringContaining('clientCapabilities') },
    });
    expect(await wire.call(2, 'server/discover', {})).toMatchObject({ error: { code: -32602 } });
  });

  it('has no ping, logging/setLevel or resources/subscribe', async () => {
    await using wire = new RawWire();
    for (const method of ['ping', 'logging/setLevel', 'resources/subscribe']) {
      expect(
        await wire.call(method, method, { level: 'info', uri: 'test://static-text', _meta: META() }),
      ).toMatchObject({
        error: { code: -32601 },
      });
    }
  });

  it('sends log messages only when the request asks for a level, and only at or above it', async () => {
    await using wire = new RawWire();
    expect(await wire.call(1, 'tools/call', { name: 'logs', _meta: META() })).toMatchObject({
      id: 1,
      result: { resultType: 'complete' },
    });
    wire.send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'logs', _meta: META({ 'io.modelcontextprotocol/logLevel': 'info' }) },
    });
    const lines = [await wire.next(), await wire.next(), await wire.next()];
    expect(
      lines.map((l) => (l as { method?: string; params?: { level?: string } }).params?.level ?? 'result'),
    ).toEqual(['info', 'error', 'result']);
  });

  it('answers an unknown resource with -32602, not -32002', async () => {
    await using wire = new RawWire();
    expect(await wire.call(1, 'resources/read', { uri: 'test://nope', _meta: META() })).toMatchObject({
      error: { code: -32602, data: { uri: 'test://nope' } },
    });
  });

  it('keeps serving the handshake era on another connection of the same server', async () => {
    await using wire = new RawWire();
    expect(await wire.initialize('2025-06-18')).toMatchObject({ result: { protocolVersion: '2025-06-18' } });
    const list = (await wire.call(1, 'tools/list')) as { result: Record<string, unknown> };
    expect(list.result).not.toHaveProperty('resultType');
    expect(list.result).not.toHaveProperty('ttlMs');
  });
});
