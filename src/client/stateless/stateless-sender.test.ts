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
});
