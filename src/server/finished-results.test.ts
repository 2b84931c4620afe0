import { describe, expect, it } from 'vitest';
import { isSerializedOnce, serializeOnce, stringifyJson } from '../protocol/json-text.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { profileFor } from '../protocol/revisions/index.js';
import { FinishedResults } from './finished-results.js';

const stateless = profileFor('2026-07-28');
const handshake = profileFor('2025-11-25');
const info = { name: 'srv', version: '1.0.0', title: 'Server', websiteUrl: 'https://example.com' };
const publicHint = { ttlMs: 0, cacheScope: 'public' as const };
const page = () =>
  serializeOnce({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }], nextCursor: 'c' });

describe('FinishedResults', () => {
  it('finishes a stateless-era result as the revision asks: resultType, the cache hint, serverInfo', () => {
    const finished = new FinishedResults(info).finish(stateless, page(), {
      ttlMs: 5000,
      cacheScope: 'private',
    });
    expect(finished).toEqual({
      resultType: 'complete',
      tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
      nextCursor: 'c',
      ttlMs: 5000,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': stateless.shapeImplementation(info) },
    });
    expect(finished).toEqual(
      stateless.finishResult(page(), {
        serverInfo: stateless.shapeImplementation(info),
        cache: { ttlMs: 5000, cacheScope: 'private' },
      }),
    );
  });

  it('finishes a kept page once: the same finished object, itself kept, for every request', () => {
    const results = new FinishedResults(info);
    const shared = page();
    const first = results.finish(stateless, shared, publicHint);
    expect(results.finish(stateless, shared, { ...publicHint })).toBe(first);
    expect(isSerializedOnce(first)).toBe(true);
    expect(Object.isFrozen((first as JsonObject)._meta)).toBe(true);
    const response = { jsonrpc: '2.0', id: 3, result: first };
    expect(stringifyJson(response)).toBe(JSON.stringify(response));
  });

  it('finishes the page again when the cache hint changed, and never keeps what is not a kept page', () => {
    const results = new FinishedResults(info);
    const shared = page();
    const open = results.finish(stateless, shared, publicHint);
    const closed = results.finish(stateless, shared, { ttlMs: 0, cacheScope: 'private' });
    expect(closed).not.toBe(open);
    expect(closed).toHaveProperty('cacheScope', 'private');
    // A plain result (a tool call's, a resource read's) is finished afresh every time, and not marked.
    const plain = { content: [{ type: 'text', text: 'hi' }] };
    const once = results.finish(stateless, plain, publicHint);
    expect(results.finish(stateless, plain, publicHint)).not.toBe(once);
    expect(isSerializedOnce(once)).toBe(false);
    expect(results.finish(stateless, plain)).not.toHaveProperty('ttlMs');
  });

  it('leaves handshake-era results as they are', () => {
    const shared = page();
    expect(new FinishedResults(info).finish(handshake, shared, publicHint)).toBe(shared);
  });
});
