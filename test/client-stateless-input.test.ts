// The client in the stateless era (2026-07-28): multi round-trip requests (input_required answered by
// the handlers, retried with requestState, bounded in rounds and time) and the result cache (ttlMs,
// cacheScope, list_changed and refresh), against hand-written fake servers.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { fakeServer, tool } from './_stateless-fake-server.js';

describe('input_required (multi round-trip requests)', () => {
  it('answers every input request, retries with the same params, inputResponses and the untouched requestState', async () => {
    let round = 0;
    await using f = await fakeServer(
      {
        'tools/call': () => {
          round++;
          if (round === 1) {
            return {
              resultType: 'input_required',
              inputRequests: {
                login: {
                  method: 'elicitation/create',
                  params: { mode: 'form', message: 'Login?', requestedSchema: { type: 'object' } },
                },
                capital: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
                where: { method: 'roots/list' },
              },
              requestState: ' opaque:1 {"a":1} ',
            };
          }
          if (round === 2)
            return {
              resultType: 'input_required',
              inputRequests: { again: { method: 'elicitation/create', params: { message: 'Sure?' } } },
            };
          return { resultType: 'complete', content: [{ type: 'text', text: 'done' }] };
        },
      },
      {
        elicitation: (params) => ({ action: 'accept', content: { answer: params.message } }),
        sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' }),
        roots: () => [{ uri: 'file:///w' }],
      },
    );
    await f.connected;
    expect(await f.client.callTool('book', { seat: '1A' })).toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
    const calls = f.calls('tools/call');
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    const { _meta: _1, ...second } = calls[1]!.params;
    expect(second).toEqual({
      name: 'book',
      arguments: { seat: '1A' },
      inputResponses: {
        login: { action: 'accept', content: { answer: 'Login?' } },
        capital: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' },
        where: { roots: [{ uri: 'file:///w' }] },
      },
      requestState: ' opaque:1 {"a":1} ',
    });
    const { _meta: _2, ...third } = calls[2]!.params;
    expect(third).toEqual({
      name: 'book',
      arguments: { seat: '1A' },
      inputResponses: { again: { action: 'accept', content: { answer: 'Sure?' } } },
    });
  });

  it('retries a requestState-only answer at once, with no inputResponses', async () => {
    let round = 0;
    await using f = await fakeServer({
      'prompts/get': () =>
        ++round === 1
          ? { resultType: 'input_required', requestState: 'busy' }
          : { resultType: 'complete', messages: [] },
    });
    await f.connected;
    expect(await f.client.getPrompt('p', { a: 'b' })).toEqual({ messages: [] });
    const { _meta, ...retry } = f.calls('prompts/get')[1]!.params;
    expect(retry).toEqual({ name: 'p', arguments: { a: 'b' }, requestState: 'busy' });
  });

  it('declines an elicitation it has no handler for, and fails on sampling it has no handler for', async () => {
    await using f = await fakeServer({
      'resources/read': (params) =>
        params.inputResponses
          ? {
              resultType: 'complete',
              contents: [{ uri: 'a://1', text: JSON.stringify(params.inputResponses) }],
            }
          : {
              resultType: 'input_required',
              inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } } },
            },
      'tools/call': () => ({
        resultType: 'input_required',
        inputRequests: { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } },
      }),
    });
    await f.connected;
    expect((await f.client.readResource('a://1')).contents[0]).toMatchObject({
      text: '{"q":{"action":"decline"}}',
    });
    await expect(f.client.callTool('t')).rejects.toMatchObject({
      name: 'ClientError',
      code: 'CAPABILITY_NOT_SUPPORTED',
    });
  });

  it('gives up after maxInputRounds with TOO_MANY_INPUT_ROUNDS', async () => {
    await using f = await fakeServer(
      { 'tools/call': () => ({ resultType: 'input_required', requestState: 'more' }) },
      { maxInputRounds: 2 },
    );
    await f.connected;
    await expect(f.client.callTool('t')).rejects.toMatchObject({ code: 'TOO_MANY_INPUT_ROUNDS' });
    expect(f.calls('tools/call')).toHaveLength(3);
    await expect(f.client.callTool('t', {}, { maxInputRounds: 0 })).rejects.toMatchObject({
      code: 'TOO_MANY_INPUT_ROUNDS',
    });
  });

  it('applies the timeout to the whole exchange, handlers included, and aborts the handler', async () => {
    let handlerSignal: AbortSignal | undefined;
    const onAsked = { run: () => {} };
    await using f = await fakeServer(
      {
        'tools/call': () => ({
          resultType: 'input_required',
          inputRequests: { q: { method: 'elicitation/create', params: { message: '?' } } },
        }),
      },
      {
        elicitation: (_params, ctx) => {
          handlerSignal = ctx.signal;
          onAsked.run();
          return new Promise(() => {});
        },
      },
    );
    await f.connected;
    await expect(f.client.callTool('t', {}, { timeout: 80 })).rejects.toMatchObject({
      code: 'REQUEST_TIMEOUT',
    });
    expect(handlerSignal?.aborted).toBe(true);
    const controller = new AbortController();
    // Aborted while its elicitation handler runs, the call's whole exchange is cancelled.
    onAsked.run = () => controller.abort('stop');
    const call = f.client.callTool('t', {}, { signal: controller.signal });
    await expect(call).rejects.toMatchObject({ code: 'REQUEST_CANCELLED' });
  });
});

describe('the result cache', () => {
  afterEach(() => vi.useRealTimers());

  const page = (tools: JsonObject[], ttlMs: number | undefined, extra: JsonObject = {}) => ({
    resultType: 'complete',
    tools,
    ...(ttlMs === undefined ? {} : { ttlMs, cacheScope: 'public' }),
    ...extra,
  });

  it('reuses pages while fresh, re-fetches stale ones, each page on its own', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await using f = await fakeServer({
      'tools/list': (params) =>
        params.cursor === undefined ? page([tool('a')], 60_000, { nextCursor: 'p2' }) : page([tool('b')], 0),
    });
    await f.connected;
    expect((await f.client.listTools()).map((t) => t.name)).toEqual(['a', 'b']);
    expect((await f.client.listTools()).map((t) => t.name)).toEqual(['a', 'b']);
    expect(f.calls('tools/list').map((c) => c.params.cursor ?? 'first')).toEqual(['first', 'p2', 'p2']);
    vi.setSystemTime(Date.now() + 60_000);
    await f.client.listTools();
    expect(f.calls('tools/list')).toHaveLength(5);
  });

  it('re-fetches results without a ttlMs, and after list_changed or refresh', async () => {
    const hint: { ttl?: number } = {};
    await using f = await fakeServer({ 'tools/list': () => page([tool('a')], hint.ttl) });
    await f.connected;
    await f.client.listTools();
    await f.client.listTools();
    expect(f.calls('tools/list')).toHaveLength(2);
    hint.ttl = 60_000;
    await f.client.listTools();
    await f.client.listTools();
    expect(f.calls('tools/list')).toHaveLength(3);
    await f.peer.notify('notifications/tools/list_changed');
    // Once the client has the notification, the next listing asks the server again.
    await expect.poll(async () => (await f.client.listTools(), f.calls('tools/list').length)).toBe(4);
    await f.client.listTools({ refresh: true });
    expect(f.calls('tools/list')).toHaveLength(5);
  });

  it('keeps private results to their authorization context and shares public ones', async () => {
    let context = 'alice';
    await using f = await fakeServer(
      {
        'resources/read': (params) => ({
          resultType: 'complete',
          contents: [{ uri: params.uri as string, text: `for ${context}` }],
          ttlMs: 60_000,
          cacheScope: params.uri === 'a://private' ? 'private' : 'public',
        }),
      },
      { authContext: () => context },
    );
    await f.connected;
    for (const who of ['alice', 'bob', 'alice']) {
      context = who;
      await f.client.readResource('a://private');
      await f.client.readResource('a://public');
    }
    expect(f.calls('resources/read').map((c) => c.params.uri)).toEqual([
      'a://private',
      'a://public',
      'a://private',
    ]);
    context = 'bob';
    expect((await f.client.readResource('a://private')).contents[0]).toMatchObject({ text: 'for bob' });
    expect(await f.client.readResource('a://public')).toEqual({
      contents: [{ uri: 'a://public', text: 'for alice' }],
    });
  });

  it('never caches a result that took input rounds', async () => {
    await using f = await fakeServer({
      'resources/read': (params) =>
        params.requestState
          ? { resultType: 'complete', contents: [], ttlMs: 60_000, cacheScope: 'public' }
          : { resultType: 'input_required', requestState: 's' },
    });
    await f.connected;
    await f.client.readResource('a://1');
    await f.client.readResource('a://1');
    expect(f.calls('resources/read')).toHaveLength(4);
  });
});
