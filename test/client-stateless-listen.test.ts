// The client in the stateless era (2026-07-28): the subscriptions/listen stream (list_changed refreshes,
// resource subscriptions, a stream the server ended) and x-mcp-header declarations in tools/list,
// against hand-written fake servers.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import {
  CAPABILITIES,
  SUBSCRIPTION_ID,
  VERSION,
  fakeServer,
  never,
  tool,
  type Handler,
} from './_stateless-fake-server.js';

describe('subscriptions/listen', () => {
  /** A fake listen handler: acknowledges, keeps the stream open until cancelled. */
  function listenServer() {
    const streams: { id: string | number; filter: JsonObject; signal: AbortSignal }[] = [];
    const handler: Handler = async (params, ctx) => {
      streams.push({ id: ctx.id, filter: params.notifications as JsonObject, signal: ctx.signal });
      return never(ctx);
    };
    return { streams, handler };
  }

  it('opens one long-lived listen request, acknowledged, and refreshes on list_changed', async () => {
    const listen = listenServer();
    let tools = [tool('a')];
    await using f = await fakeServer(
      {
        'subscriptions/listen': async (params, ctx) => {
          setTimeout(
            () =>
              void f.peer.notify('notifications/subscriptions/acknowledged', {
                notifications: params.notifications as JsonObject,
                _meta: { [SUBSCRIPTION_ID]: ctx.id },
              }),
            5,
          );
          return listen.handler(params, ctx);
        },
        'tools/list': () => page(tools),
      },
      { requestTimeout: 50 },
    );
    function page(list: JsonObject[]) {
      return { resultType: 'complete', tools: list, ttlMs: 60_000, cacheScope: 'public' };
    }
    await f.connected;
    const updates: string[][] = [];
    f.client.onToolsChanged((list) => updates.push(list.map((t) => t.name)));
    await expect.poll(() => f.client.subscriptions).toEqual({ toolsListChanged: true });
    const [stream] = listen.streams;
    expect(f.calls('subscriptions/listen')[0]!.params).toMatchObject({
      notifications: { toolsListChanged: true },
      _meta: { [VERSION]: '2026-07-28', [CAPABILITIES]: {} },
    });
    await new Promise((r) => setTimeout(r, 100)); // longer than requestTimeout: no timeout for listen
    expect(stream!.signal.aborted).toBe(false);
    tools = [tool('a'), tool('b')];
    await f.peer.notify('notifications/tools/list_changed', { _meta: { [SUBSCRIPTION_ID]: stream!.id } });
    await expect.poll(() => updates).toEqual([['a', 'b']]);

    const stop = f.client.onPromptListChanged(() => {});
    await expect
      .poll(() => f.client.subscriptions)
      .toEqual({ toolsListChanged: true, promptsListChanged: true });
    await expect.poll(() => stream!.signal.aborted).toBe(true); // the old stream, once the new one is acknowledged
    const cancels = f.wire.filter((m) => m.method === 'notifications/cancelled');
    expect(cancels.map((m) => (m.params as JsonObject).requestId)).toEqual([stream!.id]);
    stop();
    await expect.poll(() => f.client.subscriptions).toEqual({ toolsListChanged: true });
  });

  it('subscribes to resources through the listen stream, and forgets a stream the server ended', async () => {
    const listen = listenServer();
    await using f = await fakeServer({
      'subscriptions/listen': async (params, ctx) => {
        queueMicrotask(
          () =>
            void f.peer.notify('notifications/subscriptions/acknowledged', {
              notifications: params.notifications as JsonObject,
              _meta: { [SUBSCRIPTION_ID]: ctx.id },
            }),
        );
        return listen.handler(params, ctx);
      },
    });
    await f.connected;
    const updated: string[] = [];
    f.client.onResourceUpdated((uri) => updated.push(uri));
    await f.client.subscribeResource('a://2');
    await f.client.subscribeResource('a://1');
    expect(f.client.subscriptions).toEqual({ resourceSubscriptions: ['a://1', 'a://2'] });
    const stream = listen.streams.at(-1)!;
    await f.peer.notify('notifications/resources/updated', {
      uri: 'a://1',
      _meta: { [SUBSCRIPTION_ID]: stream.id },
    });
    await expect.poll(() => updated).toEqual(['a://1']);
    await f.peer.notify('notifications/cancelled', { requestId: stream.id, reason: 'shutting down' });
    await expect.poll(() => f.client.subscriptions).toBeUndefined();
  });
});

describe('x-mcp-header in tools/list', () => {
  it('leaves out tools with invalid declarations, with one warning each', async () => {
    const warnings: string[] = [];
    const schema = (properties: JsonObject, extra: JsonObject = {}) => ({
      type: 'object',
      properties,
      ...extra,
    });
    await using f = await fakeServer(
      {
        'tools/list': () => ({
          resultType: 'complete',
          tools: [
            tool(
              'ok',
              schema({
                region: { type: 'string', 'x-mcp-header': 'Region' },
                n: { type: 'integer', 'x-mcp-header': 'N' },
              }),
            ),
            tool(
              'nested_ok',
              schema({ a: { type: 'object', properties: { b: { type: 'boolean', 'x-mcp-header': 'B' } } } }),
            ),
            tool('bad_token', schema({ r: { type: 'string', 'x-mcp-header': 'Re gion' } })),
            tool('number', schema({ r: { type: 'number', 'x-mcp-header': 'R' } })),
            tool(
              'duplicate',
              schema({
                a: { type: 'string', 'x-mcp-header': 'X' },
                b: { type: 'string', 'x-mcp-header': 'x' },
              }),
            ),
            tool(
              'in_items',
              schema({ a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } }),
            ),
            tool(
              'in_anyof',
              schema({}, { anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }),
            ),
          ],
        }),
      },
      { onWarning: (message) => warnings.push(message) },
    );
    await f.connected;
    expect((await f.client.listTools()).map((t) => t.name)).toEqual(['ok', 'nested_ok']);
    await f.client.listTools();
    expect(warnings.map((w) => /^Tool (\S+)/.exec(w)?.[1])).toEqual([
      'bad_token',
      'number',
      'duplicate',
      'in_items',
      'in_anyof',
    ]);
  });
});
