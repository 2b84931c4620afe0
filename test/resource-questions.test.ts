// A resource reader asks the client as a tool does (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`): in the
// handshake era as requests to the client during resources/read, in the stateless era through
// input_required (the read answers with the questions, the client retries with its answers). Over real
// HTTP, against toolwire's client in both eras and the official SDK 1.x (handshake) and 2.x (stateless)
// clients.
import {
  Client as SdkClientV2,
  StreamableHTTPClientTransport as SdkHttpV2,
} from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { Server } from '../src/server/index.js';
import { serveHttp } from '../src/transports/http/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const DAY_FORM = {
  message: 'Which day?',
  requestedSchema: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
} as const;

/** `notes://today` asks the user which day, the model for a summary and the client for its roots. */
async function notesServer(): Promise<{ url: string; reads: () => number }> {
  let reads = 0;
  const server = new Server({ name: 'notes', version: '1.0.0' });
  server.resource('notes://today', { name: 'today', mimeType: 'text/plain' }, async (_uri, ctx) => {
    reads++;
    const answer = await ctx.elicit(DAY_FORM);
    if (answer.action !== 'accept') return `no day (${answer.action})`;
    const sampled = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the day' } }],
      maxTokens: 20,
    });
    const summary = 'text' in sampled.content ? sampled.content.text : '?';
    const { roots } = await ctx.listRoots();
    return `${String(answer.content?.day)}: ${summary} [${roots.map((r) => r.uri).join(',')}]`;
  });
  const handle = await serveHttp(server, { port: 0 });
  cleanup.push(() => handle.close());
  return { url: handle.url, reads: () => reads };
}

const EXPECTED = 'Tuesday: a quiet day [file:///notes]';
const ANSWERS: ClientOptions = {
  capabilities: { elicitation: { form: {} }, sampling: {} },
  elicitation: (params) => ({
    action: 'accept',
    content: { day: params.message === 'Which day?' ? 'Tuesday' : '?' },
  }),
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'a quiet day' }, model: 'm' }),
  roots: [{ uri: 'file:///notes' }],
};

async function toolwireClient(url: string, options: ClientOptions): Promise<Client> {
  const client = new Client({ name: 'reader', version: '1.0.0' }, options);
  await client.connect(new StreamableHttpClientTransport({ url }));
  cleanup.push(() => client.close());
  return client;
}

const textOf = (result: { contents: unknown[] }) => (result.contents[0] as { text?: string }).text;

describe('a resource reader that asks the client', () => {
  for (const protocolVersion of ['2025-11-25', '2025-06-18', '2026-07-28'] as const) {
    it(`is answered by a toolwire client of ${protocolVersion}`, async () => {
      const { url, reads } = await notesServer();
      const client = await toolwireClient(url, { protocolVersion, ...ANSWERS });
      expect(textOf(await client.readResource('notes://today'))).toBe(EXPECTED);
      // The stateless era runs the reader again on each retry: once per question, then with every answer.
      expect(reads()).toBe(protocolVersion === '2026-07-28' ? 4 : 1);
    });
  }

  it('answers a stateless-era read with input_required, whose retry completes it (on the wire)', async () => {
    const { url } = await notesServer();
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    };
    const post = async (params: object) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'resources/read',
          'mcp-name': 'notes://today',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params }),
      });
      // JSON or one SSE event, as the server chooses.
      const body = await response.text();
      const json = response.headers.get('content-type')?.startsWith('text/event-stream')
        ? (/^data: (.*)$/m.exec(body)?.[1] ?? '')
        : body;
      return JSON.parse(json) as { result?: Record<string, unknown>; error?: unknown };
    };
    const first = await post({ uri: 'notes://today', _meta: meta });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicit-1': { method: 'elicitation/create', params: { message: 'Which day?' } } },
    });
    expect(first.result).not.toHaveProperty('ttlMs'); // a question is no cacheable read
    const declined = await post({
      uri: 'notes://today',
      _meta: meta,
      inputResponses: { 'elicit-1': { action: 'decline' } },
      requestState: first.result?.requestState,
    });
    expect(declined.result).toMatchObject({
      resultType: 'complete',
      contents: [{ uri: 'notes://today', text: 'no day (decline)' }],
    });
  });

  it('is -32021 in the stateless era for a client that did not declare what it asks', async () => {
    const { url } = await notesServer();
    const client = await toolwireClient(url, { protocolVersion: '2026-07-28' });
    await expect(client.readResource('notes://today')).rejects.toMatchObject({ code: -32021 });
  });

  it('is answered by the SDK 1.x client (handshake era) through its request handlers', async () => {
    const { url, reads } = await notesServer();
    const sdk = new SdkClient(
      { name: 'sdk', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {}, roots: {} } },
    );
    sdk.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { day: 'Tuesday' } }));
    sdk.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: 'assistant',
      content: { type: 'text', text: 'a quiet day' },
      model: 'm',
    }));
    sdk.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///notes' }] }));
    await sdk.connect(new SdkHttp(new URL(url)));
    cleanup.push(() => sdk.close());
    const result = await sdk.readResource({ uri: 'notes://today' });
    expect(result.contents[0]).toMatchObject({ text: EXPECTED });
    expect(reads()).toBe(1);
  });

  it('is answered by the SDK 2.x client (stateless era) through input_required', async () => {
    const { url } = await notesServer();
    const sdk = new SdkClientV2(
      { name: 'sdk-v2', version: '2.0.0' },
      {
        capabilities: { elicitation: {}, sampling: {}, roots: {} },
        versionNegotiation: { mode: 'auto', probe: { timeoutMs: 5_000 } },
      },
    );
    sdk.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { day: 'Tuesday' },
    }));
    sdk.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      model: 'm',
      content: { type: 'text', text: 'a quiet day' },
    }));
    sdk.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///notes' }] }));
    await sdk.connect(new SdkHttpV2(new URL(url)));
    cleanup.push(() => sdk.close());
    expect(sdk.getProtocolEra()).toBe('modern');
    const result = await sdk.readResource({ uri: 'notes://today' });
    expect(result.contents[0]).toMatchObject({ text: EXPECTED });
  });
});
