import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dropSerializedAhead, serializeAhead, serializeOnce, stringifyJson } from './json-text.js';
import { errorResponse, notification, request, resultResponse, type JsonObject } from './jsonrpc.js';

describe('serializeOnce / stringifyJson', () => {
  it('writes a response with a marked result exactly as JSON.stringify would, for any id', () => {
    const page = serializeOnce({
      tools: [{ name: 'a "quoted" \u2028 name', inputSchema: {} }],
      nextCursor: 'c',
    });
    for (const id of [1, 0, -7, 'abc', 'quote"d\n']) {
      const message = resultResponse(id, page);
      expect(stringifyJson(message)).toBe(JSON.stringify(message));
    }
  });

  it('computes the text once, on first use, and reuses it for later messages', () => {
    let reads = 0;
    const items = [{ name: 'x' }];
    const page = serializeOnce({
      get tools() {
        reads++;
        return items;
      },
    });
    expect(reads).toBe(1); // freezing reads the fields once
    stringifyJson(resultResponse(1, page));
    stringifyJson(resultResponse(2, page));
    expect(stringifyJson(resultResponse(3, page))).toBe(
      '{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"x"}]}}',
    );
    expect(reads).toBe(2);
  });

  it('freezes the result and its lists, so the kept text cannot go stale', () => {
    const page = serializeOnce({ tools: [{ name: 'x' }] });
    expect(Object.isFrozen(page)).toBe(true);
    expect(Object.isFrozen(page.tools)).toBe(true);
    expect(() => (page.tools as unknown[]).push({ name: 'y' })).toThrow(TypeError);
  });

  it('serializes anything else with JSON.stringify: other results, errors, notifications, non-messages', () => {
    const values: unknown[] = [
      resultResponse(1, { tools: [] }),
      errorResponse(2, { code: -32602, message: 'bad' }),
      notification('notifications/tools/list_changed'),
      { resource: 'https://example.com', authorization_servers: [] },
      'text',
      null,
    ];
    for (const value of values) expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('falls back to JSON.stringify when a message carrying a marked result has other fields', () => {
    const page = serializeOnce({ prompts: [] });
    const odd = { ...resultResponse(1, page), extra: true };
    expect(stringifyJson(odd)).toBe(JSON.stringify(odd));
    const noId = { jsonrpc: '2.0', result: page };
    expect(stringifyJson(noId)).toBe(JSON.stringify(noId));
  });

  it('splices marked results inside a batch', () => {
    const page = serializeOnce({ tools: [{ name: 'x' }] });
    const batch = [
      resultResponse(1, page),
      errorResponse(2, { code: -32601, message: 'no' }),
      resultResponse(3, page),
    ];
    expect(stringifyJson(batch)).toBe(JSON.stringify(batch));
    expect(stringifyJson([])).toBe('[]');
    const holey = [resultResponse(1, page), undefined];
    expect(stringifyJson(holey)).toBe(JSON.stringify(holey));
  });

  it('splices a marked _meta into a request: the same JSON value, the _meta member last', () => {
    const meta = serializeOnce({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      info: { name: 'x' },
    });
    for (const id of [0, 7, 'a"b']) {
      const message = request(id, 'tools/call', {
        name: 'e"cho',
        _meta: meta,
        arguments: { text: 'hi\n', n: [1, { b: null }] },
        gone: undefined,
      });
      const text = stringifyJson(message);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(message)));
      expect(text.endsWith(`"_meta":${JSON.stringify(meta)}}}`)).toBe(true);
    }
    expect(stringifyJson(request(1, 'ping', { _meta: meta }))).toBe(
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":${JSON.stringify(meta)}}}`,
    );
  });

  it('splices any params as JSON.stringify would write them, the marked _meta last', () => {
    const meta = serializeOnce({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28' });
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', '0', '7', 'name', 'arguments', '_meta'));
    const value = fc.oneof(fc.jsonValue(), fc.constant(undefined));
    const id = fc.oneof(fc.integer(), fc.double(), fc.string());
    fc.assert(
      fc.property(id, fc.string(), fc.dictionary(key, value), (id, method, members) => {
        const params: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(members)) {
          Object.defineProperty(params, k, {
            value: v,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        params._meta = meta;
        const message = request(id, method, params as JsonObject);
        const text = stringifyJson(message);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(message)));
        expect(text.endsWith(`"_meta":${JSON.stringify(meta)}}}`)).toBe(true);
      }),
    );
  });

  it('serializes a request with JSON.stringify when its _meta is not marked, or it has other fields', () => {
    const meta = serializeOnce({ a: 1 });
    const values = [
      request(1, 'tools/call', { name: 'x', _meta: { a: 1 } }),
      { ...request(1, 'tools/call', { name: 'x', _meta: meta }), extra: true },
      notification('notifications/progress', { _meta: meta, progress: 1 }),
    ];
    for (const value of values) expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });
});

describe('serializeAhead', () => {
  it('gives the exact length, and the next stringifyJson of that very message its text, once', () => {
    const message = resultResponse(3, { content: [{ type: 'text', text: 'é "q" \u2028' }] });
    const length = serializeAhead(message);
    expect(length).toBe(JSON.stringify(message).length);
    // Another message is serialized as it is, and leaves the slot.
    const other = resultResponse(4, { content: [] });
    expect(stringifyJson(other)).toBe(JSON.stringify(other));
    expect(stringifyJson(message)).toBe(JSON.stringify(message));
    // Taken: a change made since is written (no stale text).
    (message.result as { content: unknown[] }).content.push({ type: 'text', text: 'later' });
    expect(stringifyJson(message)).toBe(JSON.stringify(message));
  });

  it('keeps nothing once dropped: a message changed after the drop is written as it is now', () => {
    const message = resultResponse(5, { content: [] });
    serializeAhead(message);
    dropSerializedAhead();
    (message.result as { content: unknown[] }).content.push({ type: 'text', text: 'changed' });
    expect(stringifyJson(message)).toBe(JSON.stringify(message));
    expect(stringifyJson(undefined)).toBe(JSON.stringify(undefined));
  });
});
