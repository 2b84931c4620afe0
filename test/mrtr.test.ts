// Multi round-trip requests (SEP-2322) and the W3C trace context on the server: exact bytes over stdio,
// an in-process raw peer where a clock or a second server is needed, and the official SDK 2.x client.
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { serverCommand } from './_setup.js';
import { RawWire } from './_wire.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/mrtr-server.mjs', import.meta.url));
const SERVER_INFO = { name: 'protocol-fixture', version: '1.0.0', title: 'Protocol fixture' };
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

interface Response {
  id?: string | number;
  result?: Record<string, unknown> & { requestState?: string; inputRequests?: Record<string, unknown> };
  error?: { code: number; message: string; data?: unknown };
}

const META = (capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-mrtr', version: '1' },
  ...extra,
});

const ELICIT = { elicitation: {} };
const ASK_NAME = {
  method: 'elicitation/create',
  params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
};
const ASK_TOPIC = {
  method: 'elicitation/create',
  params: {
    message: 'Topic?',
    requestedSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  },
};
const INVALID_STATE = { code: -32602, message: 'Invalid params: invalid requestState' };

/** `tools/call` params in the stateless era. */
const call = (name: string, capabilities: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  name,
  arguments: {},
  ...more,
  _meta: META(capabilities),
});

/** The token with its middle character changed. */
function flip(token: string): string {
  const i = Math.floor(token.length / 2);
  return token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
}

async function rpc(wire: RawWire, id: number, method: string, params: unknown): Promise<Response> {
  return (await wire.call(id, method, params)) as Response;
}

/** Calls `tool` again with `inputResponses`, carrying the `requestState` of the `previous` answer. */
function retryWith(
  wire: RawWire,
  id: number,
  tool: string,
  capabilities: Record<string, unknown>,
  previous: Response,
  inputResponses: Record<string, unknown>,
): Promise<Response> {
  const requestState = previous.result!.requestState;
  return rpc(wire, id, 'tools/call', call(tool, capabilities, { inputResponses, requestState }));
}

interface ServerModule {
  default: (options?: Record<string, unknown>) => {
    connect(transport: unknown): Promise<unknown>;
    close(): Promise<void>;
  };
}

/** A raw JSON-RPC peer of a fixture server living in this process (for a fake clock, or two servers). */
async function inProcess(options: Record<string, unknown> = {}) {
  const server = ((await import(FIXTURE)) as ServerModule).default(options);
  const [client, end] = createLinkedPair();
  await server.connect(end);
  const waiting = new Map<unknown, (message: Response) => void>();
  client.onmessage = (message) => waiting.get((message as Response).id)?.(message as Response);
  await client.start();
  return {
    call(id: number, method: string, params: unknown): Promise<Response> {
      const answer = new Promise<Response>((resolve) => waiting.set(id, resolve));
      void client.send({ jsonrpc: '2.0', id, method, params: params as never });
      return answer;
    },
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

describe('multi round-trip requests over stdio (2026-07-28)', () => {
  it('ends a call that elicits with input_required, then completes it on the retry with the answer', async () => {
    await using wire = new RawWire(FIXTURE);
    const first = await rpc(wire, 1, 'tools/call', call('ask', ELICIT));
    expect(first).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'input_required',
        inputRequests: { 'elicit-1': ASK_NAME },
        requestState: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/),
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
    const retry = await retryWith(wire, 2, 'ask', ELICIT, first, {
      'elicit-1': { action: 'accept', content: { name: 'Ada' } },
    });
    expect(retry).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: 'accept:Ada' }],
        _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
      },
    });
    expect(retry.result).not.toHaveProperty('ttlMs'); // a retried result is never cacheable
  });

  it('asks one question per round, carrying earlier answers in requestState', async () => {
    await using wire = new RawWire(FIXTURE);
    const caps = { elicitation: {}, sampling: {} };
    const first = await rpc(wire, 1, 'tools/call', call('ask_then_sample', caps));
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicit-1': ASK_TOPIC },
    });

    const second = await retryWith(wire, 2, 'ask_then_sample', caps, first, {
      'elicit-1': { action: 'accept', content: { topic: 'tides' } },
    });
    expect(second.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        'sample-2': {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: 'One line about tides' } }],
            maxTokens: 20,
          },
        },
      },
    });
    expect(Object.keys(second.result!.inputRequests!)).toEqual(['sample-2']);

    // Only this round's answer travels in inputResponses; the topic comes back from requestState.
    const third = await retryWith(wire, 3, 'ask_then_sample', caps, second, {
      'sample-2': { role: 'assistant', model: 'm', content: { type: 'text', text: 'the moon pulls' } },
    });
    expect(third.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'tides: the moon pulls' }],
    });
  });

  it('asks again, rather than failing, when the retry leaves a question unanswered', async () => {
    await using wire = new RawWire(FIXTURE);
    const first = await rpc(wire, 1, 'tools/call', call('ask', ELICIT));
    const again = await retryWith(wire, 2, 'ask', ELICIT, first, {});
    expect(again.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicit-1': ASK_NAME },
    });
  });

  it('puts questions asked together into one round', async () => {
    await using wire = new RawWire(FIXTURE);
    const caps = { elicitation: {}, roots: {} };
    const first = await rpc(wire, 1, 'tools/call', call('ask_and_roots', caps));
    expect(first.result!.inputRequests).toEqual({
      'elicit-1': ASK_TOPIC,
      'roots-2': { method: 'roots/list' },
    });
    const done = await retryWith(wire, 2, 'ask_and_roots', caps, first, {
      'elicit-1': { action: 'accept', content: { topic: 'tides' } },
      'roots-2': { roots: [{ uri: 'file:///sea' }] },
    });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'tides in file:///sea' }] });
  });

  it('refuses with -32021 a question the request did not declare the capability for', async () => {
    await using wire = new RawWire(FIXTURE);
    expect(await rpc(wire, 1, 'tools/call', call('ask', {}))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32021,
        message: 'Server requires the elicitation capability for this request',
        data: { requiredCapabilities: { elicitation: {} } },
      },
    });
    // The second question of a call needs its own capability, checked when it is asked.
    const first = await rpc(wire, 2, 'tools/call', call('ask_then_sample', ELICIT));
    const second = await retryWith(wire, 3, 'ask_then_sample', ELICIT, first, {
      'elicit-1': { action: 'accept', content: { topic: 'tides' } },
    });
    expect(second.error).toEqual({
      code: -32021,
      message: 'Server requires the sampling capability for this request',
      data: { requiredCapabilities: { sampling: {} } },
    });
  });

  it('refuses a tampered requestState with -32602', async () => {
    await using wire = new RawWire(FIXTURE);
    const first = await rpc(wire, 1, 'tools/call', call('ask', ELICIT));
    const retry = await rpc(
      wire,
      2,
      'tools/call',
      call('ask', ELICIT, {
        inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Ada' } } },
        requestState: flip(first.result!.requestState!),
      }),
    );
    expect(retry.error).toMatchObject(INVALID_STATE);
  });

  it('refuses a requestState made for another call with -32602', async () => {
    await using wire = new RawWire(FIXTURE);
    const first = await rpc(wire, 1, 'tools/call', call('confirm', ELICIT, { arguments: { item: 'a.txt' } }));
    expect(first.result!.inputRequests).toEqual({
      'elicit-1': {
        method: 'elicitation/create',
        params: {
          message: 'Delete a.txt?',
          requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } } },
        },
      },
    });
    const replay = {
      inputResponses: { 'elicit-1': { action: 'accept', content: { sure: true } } },
      requestState: first.result!.requestState,
    };
    const otherArguments = await rpc(
      wire,
      2,
      'tools/call',
      call('confirm', ELICIT, { arguments: { item: 'everything' }, ...replay }),
    );
    expect(otherArguments.error).toMatchObject(INVALID_STATE);
    const otherTool = await rpc(wire, 3, 'tools/call', call('ask', ELICIT, replay));
    expect(otherTool.error).toMatchObject(INVALID_STATE);
    // The state still serves the call it was made for.
    const same = await rpc(
      wire,
      4,
      'tools/call',
      call('confirm', ELICIT, { arguments: { item: 'a.txt' }, ...replay }),
    );
    expect(same.result).toMatchObject({ content: [{ type: 'text', text: 'a.txt: accept' }] });
  });

  it('refuses a malformed answer with -32602', async () => {
    await using wire = new RawWire(FIXTURE);
    const first = await rpc(wire, 1, 'tools/call', call('ask', ELICIT));
    const retry = await retryWith(wire, 2, 'ask', ELICIT, first, { 'elicit-1': { action: 'maybe' } });
    expect(retry.error).toEqual({
      code: -32602,
      message:
        'Invalid params: inputResponses["elicit-1"] is not a valid elicitation/create result: action must be "accept", "decline" or "cancel"',
    });
  });

  it('keeps sending elicitation/create to the client in the handshake era', async () => {
    await using wire = new RawWire(FIXTURE);
    wire.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    expect(await wire.next()).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
    wire.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: {} } });
    const request = (await wire.next()) as { id: number; method: string; params: unknown };
    expect(request).toEqual({ jsonrpc: '2.0', id: expect.any(Number), ...ASK_NAME });
    wire.send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name: 'Ada' } } });
    expect(await wire.next()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'accept:Ada' }] },
    });
    // Without the capability: today's isError result, not -32021.
    expect(await rpc(wire, 2, 'tools/call', { name: 'sample', arguments: {} })).toMatchObject({
      result: {
        isError: true,
        content: [{ type: 'text', text: expect.stringContaining('sampling capability') }],
      },
    });
  });
});

describe('named questions, answers without state, and prompts', () => {
  it('uses the key the handler names, and completes when the answer comes without a requestState', async () => {
    await using wire = new RawWire(FIXTURE);
    const first = await rpc(wire, 1, 'tools/call', call('named_question', ELICIT));
    expect(Object.keys(first.result?.inputRequests ?? {})).toEqual(['user_name']);
    const answered = await rpc(
      wire,
      2,
      'tools/call',
      call('named_question', ELICIT, {
        inputResponses: {
          user_name: { action: 'accept', content: { topic: 'Ada' } },
          extra: { ignored: true },
        },
      }),
    );
    expect(answered.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hello Ada' }],
    });
  });

  it('refuses an answer without state that is not a valid result for its question', async () => {
    await using wire = new RawWire(FIXTURE);
    const answered = await rpc(
      wire,
      1,
      'tools/call',
      call('named_question', ELICIT, { inputResponses: { user_name: { nope: 1 } } }),
    );
    expect(answered.error).toMatchObject({ code: -32602 });
  });

  it('asks for input from prompts/get too, then completes it', async () => {
    await using wire = new RawWire(FIXTURE);
    const params = (more: Record<string, unknown> = {}) => ({
      name: 'ask_context',
      ...more,
      _meta: META(ELICIT),
    });
    const first = await rpc(wire, 1, 'prompts/get', params());
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { context: { method: 'elicitation/create' } },
    });
    const done = await rpc(
      wire,
      2,
      'prompts/get',
      params({
        inputResponses: { context: { action: 'accept', content: { topic: 'tests' } } },
        requestState: first.result?.requestState,
      }),
    );
    expect(done.result).toMatchObject({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: tests' } }],
    });
  });

  it('answers initialize sent with the stateless _meta as a removed method (-32601)', async () => {
    await using wire = new RawWire(FIXTURE);
    expect(await rpc(wire, 1, 'initialize', { _meta: META() })).toMatchObject({ error: { code: -32601 } });
  });
});

describe('requestState lifetime and secret', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses a requestState older than ten minutes with -32602', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-08-01T12:00:00Z'));
    await using peer = await inProcess();
    const first = await peer.call(1, 'tools/call', call('ask', ELICIT));
    const retry = (id: number) =>
      peer.call(
        id,
        'tools/call',
        call('ask', ELICIT, {
          inputResponses: { 'elicit-1': { action: 'decline' } },
          requestState: first.result!.requestState,
        }),
      );
    vi.setSystemTime(new Date('2026-08-01T12:09:59Z'));
    expect((await retry(2)).result).toMatchObject({ content: [{ type: 'text', text: 'decline:' }] });
    vi.setSystemTime(new Date('2026-08-01T12:10:00Z'));
    expect((await retry(3)).error).toEqual({ ...INVALID_STATE, data: { reason: 'expired' } });
  });

  it('honours requestStateTtlMs', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    await using peer = await inProcess({ requestStateTtlMs: 1000 });
    const first = await peer.call(1, 'tools/call', call('ask', ELICIT));
    vi.setSystemTime(Date.now() + 1000);
    const retry = await peer.call(
      2,
      'tools/call',
      call('ask', ELICIT, { inputResponses: {}, requestState: first.result!.requestState }),
    );
    expect(retry.error).toMatchObject(INVALID_STATE);
  });

  it('accepts a retry on another server that shares requestStateSecret, and only then', async () => {
    await using a = await inProcess({ requestStateSecret: 'shared secret of the whole deployment' });
    await using b = await inProcess({ requestStateSecret: 'shared secret of the whole deployment' });
    await using c = await inProcess({ requestStateSecret: 'another deployment' });
    const first = await a.call(1, 'tools/call', call('ask', ELICIT));
    const retry = call('ask', ELICIT, {
      inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Bo' } } },
      requestState: first.result!.requestState,
    });
    expect((await b.call(2, 'tools/call', retry)).result).toMatchObject({ content: [{ text: 'accept:Bo' }] });
    expect((await c.call(3, 'tools/call', retry)).error).toEqual({
      ...INVALID_STATE,
      data: { reason: 'forged' },
    });
  });
});

describe('trace context in the handler context', () => {
  it('gives the handler traceparent and tracestate from _meta, in the stateless era', async () => {
    await using wire = new RawWire(FIXTURE);
    const meta = META({}, { traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7' });
    expect(await rpc(wire, 1, 'tools/call', { name: 'trace', arguments: {}, _meta: meta })).toMatchObject({
      result: { structuredContent: { traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7' } },
    });
    const bad = META({}, { traceparent: '00-xyz-01', tracestate: 'rojo=1' });
    expect(await rpc(wire, 2, 'tools/call', { name: 'trace', arguments: {}, _meta: bad })).toMatchObject({
      result: { structuredContent: { traceparent: null, tracestate: null } },
    });
  });

  it('gives the handler traceparent in the handshake era', async () => {
    await using wire = new RawWire(FIXTURE);
    await wire.initialize('2025-06-18');
    const params = { name: 'trace', arguments: {}, _meta: { traceparent: TRACEPARENT } };
    expect(await rpc(wire, 1, 'tools/call', params)).toMatchObject({
      result: { structuredContent: { traceparent: TRACEPARENT, tracestate: null } },
    });
  });
});

describe('official SDK 2.x client (versionNegotiation auto) -> toolwire input_required', () => {
  it('answers input_required through its elicitation and sampling handlers and gets the final result', async () => {
    const client = new SdkClient(
      { name: 'sdk-v2-mrtr', version: '2.0.0' },
      {
        capabilities: { elicitation: {}, sampling: {} },
        versionNegotiation: { mode: 'auto', probe: { timeoutMs: 5_000 } },
      },
    );
    const asked: unknown[] = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { topic: 'tides' } };
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push(request.params);
      return { role: 'assistant', model: 'stub', content: { type: 'text', text: 'the moon pulls' } };
    });
    try {
      await client.connect(new SdkStdioClientTransport({ ...serverCommand(FIXTURE), stderr: 'ignore' }));
      expect(client.getProtocolEra()).toBe('modern');
      expect(await client.callTool({ name: 'ask_then_sample', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'tides: the moon pulls' }],
      });
      expect(asked).toEqual([
        expect.objectContaining(ASK_TOPIC.params),
        expect.objectContaining({ maxTokens: 20 }),
      ]);
    } finally {
      await client.close();
    }
  });
});
