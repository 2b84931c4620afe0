import { describe, expect, it } from 'vitest';
import type { Peer } from '../../protocol/engine/peer.js';
import { ProtocolError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { plainResult } from './plain-result.js';
import { pickStatelessVersion } from './stateless-meta.js';
import { StatelessSender } from './stateless-sender.js';

const VERSION = 'io.modelcontextprotocol/protocolVersion';

/** A peer whose server speaks only `serves`, answering -32022 otherwise. */
function stubPeer(serves: string[]) {
  const sent: JsonObject[] = [];
  const peer = {
    request(_method: string, params: JsonObject) {
      sent.push(params);
      const version = (params._meta as JsonObject)[VERSION] as string;
      if (serves.includes(version)) return Promise.resolve({ resultType: 'complete', ok: version });
      return Promise.reject(
        new ProtocolError(-32022, 'Unsupported protocol version', { supported: serves, requested: version }),
      );
    },
  };
  return { peer: peer as unknown as Peer, sent };
}

const identity = { info: { name: 'c', version: '1' }, capabilities: {} };

describe('StatelessSender', () => {
  it('switches to a version both sides speak after -32022, and retries once', async () => {
    const { peer, sent } = stubPeer(['2026-01-01']);
    const sender = new StatelessSender(peer, '2027-01-01', identity, ['2027-01-01', '2026-01-01']);
    await expect(sender.request('tools/list', {}, {})).resolves.toMatchObject({ ok: '2026-01-01' });
    expect(sender.version).toBe('2026-01-01');
    expect(sent.map((p) => (p._meta as JsonObject)[VERSION])).toEqual(['2027-01-01', '2026-01-01']);
  });

  it('passes the -32022 on when no version is mutual', async () => {
    const { peer, sent } = stubPeer(['2099-01-01']);
    const sender = new StatelessSender(peer, '2027-01-01', identity, ['2027-01-01', '2026-01-01']);
    await expect(sender.request('tools/list', {}, {})).rejects.toMatchObject({ code: -32022 });
    expect(sent).toHaveLength(1);
  });

  it('keeps the request’s own _meta keys next to the era’s', async () => {
    const { peer, sent } = stubPeer(['2026-07-28']);
    const sender = new StatelessSender(peer, '2026-07-28', identity);
    sender.logLevel = 'error';
    await sender.request('x', { a: 1, _meta: { 'com.example/k': true } }, {});
    expect(sent[0]).toEqual({
      a: 1,
      _meta: {
        'com.example/k': true,
        [VERSION]: '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
        'io.modelcontextprotocol/logLevel': 'error',
      },
    });
  });

  it('sends the params it was given, with the era’s _meta added, and leaves them as they were', async () => {
    const { peer, sent } = stubPeer(['2026-07-28']);
    const sender = new StatelessSender(peer, '2026-07-28', identity);
    const params = JSON.parse('{"name":"t","arguments":{"a":1},"__proto__":{"x":1}}') as JsonObject;
    await sender.request('tools/call', params, {});
    const out = sent[0]!;
    expect(Object.keys(out)).toEqual(['name', 'arguments', '__proto__', '_meta']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.arguments).toBe(params.arguments);
    expect(params._meta).toBeUndefined();
  });
});

describe('pickStatelessVersion', () => {
  it('picks the newest spoken version the list names, other than the excluded one', () => {
    expect(pickStatelessVersion(['a', 'b'], ['c', 'b', 'a'])).toBe('b');
    expect(pickStatelessVersion(['a', 'b'], ['c', 'b', 'a'], 'b')).toBe('a');
    expect(pickStatelessVersion('a', ['a'])).toBeUndefined();
  });
});

describe('plainResult', () => {
  it('drops resultType, the cache hint and serverInfo, keeping other _meta', () => {
    expect(
      plainResult({
        resultType: 'complete',
        ttlMs: 5,
        cacheScope: 'public',
        tools: [],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' }, k: 1 },
      }),
    ).toEqual({ tools: [], _meta: { k: 1 } });
    expect(
      plainResult({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': {} } }),
    ).toEqual({});
  });

  it('keeps the cache hint of a task (cacheHint false), and keys in their order', () => {
    const out = plainResult({ resultType: 'task', taskId: 't', ttlMs: 60_000, status: 'working' }, false);
    expect(out).toEqual({ taskId: 't', ttlMs: 60_000, status: 'working' });
    expect(Object.keys(out)).toEqual(['taskId', 'ttlMs', 'status']);
  });

  it('keeps a "__proto__" member of the server’s JSON a member: no prototype is set from it', () => {
    const raw = JSON.parse(
      '{"resultType":"complete","content":[],"__proto__":{"isError":true},' +
        '"_meta":{"__proto__":{"x":1},"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}',
    ) as JsonObject;
    const out = plainResult(raw);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { isError?: unknown }).isError).toBeUndefined();
    expect(JSON.stringify(out)).toBe(
      '{"content":[],"__proto__":{"isError":true},"_meta":{"__proto__":{"x":1}}}',
    );
  });
});
