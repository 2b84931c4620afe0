// A toolwire client speaks the handshake-era revision it negotiated, over stdio with a raw server
// (scripts/attack/fixtures/hostile-server.mjs with `--revision`: it answers `initialize` with the revision
// named and records the client's params; its tool `ask` asks the client what a test says and gives back
// the client's answer). Pinned to a revision, the client's `initialize` carries only what that revision
// defines (clientInfo, capabilities); and whether pinned or met in `auto` mode, a server's request that
// its revision lacks is refused before any handler runs: `elicitation/create` before 2025-06-18 with
// -32601, URL-mode elicitation and sampling with tools before 2025-11-25 with -32602.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import type { HandshakeRevision } from '../src/protocol/revisions/index.js';
import { StdioClientTransport } from '../src/transports/stdio/index.js';

const ASKER = fileURLToPath(new URL('../scripts/attack/fixtures/hostile-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const INFO = {
  name: 'host',
  version: '1.0.0',
  title: 'Host',
  description: 'A host application',
  websiteUrl: 'https://host.example/',
  icons: [{ src: 'https://host.example/icon.png', mimeType: 'image/png' }],
};

/** Every capability the client can declare, in 2025-11-25's terms. */
const DECLARED: ClientOptions['capabilities'] = {
  elicitation: { form: {}, url: {} },
  sampling: { tools: {}, context: {} },
  tasks: { list: {}, cancel: {} },
};

/**
 * A client (pinned to `protocolVersion`, or `auto`) of the asker speaking `revision`, with every handler,
 * counting its handlers' calls.
 */
async function askerClient(
  revision: HandshakeRevision,
  protocolVersion: ClientOptions['protocolVersion'] = revision,
): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const client = new Client(INFO, {
    protocolVersion,
    capabilities: DECLARED,
    elicitation: (params) => (asked.push(`elicit ${params.mode ?? 'form'}`), { action: 'decline' }),
    sampling: () => (
      asked.push('sample'),
      { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }
    ),
    roots: [{ uri: 'file:///work' }],
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [ASKER, '--revision', revision],
      stderr: 'ignore',
    }),
  );
  cleanup.push(() => client.close());
  expect(client.protocolVersion).toBe(revision);
  return { client, asked };
}

/** The JSON text the asker's tool answered with. */
async function toolJson(client: Client, tool: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const result = await client.callTool(tool, args);
  return JSON.parse((result.content[0] as { text: string }).text);
}

/**
 * The params of the client's `initialize`, but `_meta`: in `auto` mode on stdio, a server slow to start
 * (a loaded machine) is sent an `initialize` marked with the stateless era's `_meta` (see `probeStdio`).
 */
async function initializeParams(client: Client): Promise<unknown> {
  const { _meta: _marked, ...params } = (await toolJson(client, 'initialize')) as Record<string, unknown>;
  return params;
}

/** What the asker's question got back: `{result}` or `{error}`. */
const ask = (client: Client, method: string, params: unknown) =>
  toolJson(client, 'ask', { method, params }) as Promise<{
    result?: unknown;
    error?: { code: number; message: string };
  }>;

const form = {
  message: 'Name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
};
const url = { mode: 'url', message: 'Sign in', url: 'https://example.com/', elicitationId: 'e1' };
const text = (value: string) => ({ type: 'text', text: value });
const sampling = { messages: [{ role: 'user', content: text('hi') }], maxTokens: 5 };
const SAMPLING_WITH_TOOLS: [string, unknown][] = [
  ['tools', { ...sampling, tools: [{ name: 'x', inputSchema: { type: 'object' } }] }],
  ['toolChoice', { ...sampling, toolChoice: { mode: 'auto' } }],
  [
    'tool_use content',
    {
      ...sampling,
      messages: [
        ...sampling.messages,
        { role: 'assistant', content: { type: 'tool_use', id: 't1', name: 'x', input: {} } },
      ],
    },
  ],
  [
    'tool_result content',
    {
      ...sampling,
      messages: [{ role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: [text('4')] }] }],
    },
  ],
];

describe("a client's initialize, pinned to a handshake-era revision", () => {
  it.each(['2024-11-05', '2025-03-26'] as const)(
    '%s: clientInfo is name and version; no elicitation, sampling tools or tasks',
    async (revision) => {
      const { client } = await askerClient(revision);
      expect(await initializeParams(client)).toEqual({
        protocolVersion: revision,
        clientInfo: { name: 'host', version: '1.0.0' },
        capabilities: { sampling: {}, roots: { listChanged: true } },
      });
    },
  );

  it("2025-06-18: clientInfo has a title; elicitation is {} (its modes are 2025-11-25's)", async () => {
    const { client } = await askerClient('2025-06-18');
    expect(await initializeParams(client)).toEqual({
      protocolVersion: '2025-06-18',
      clientInfo: { name: 'host', version: '1.0.0', title: 'Host' },
      capabilities: { elicitation: {}, sampling: {}, roots: { listChanged: true } },
    });
  });

  it('2025-11-25 (and auto, which offers it): everything declared', async () => {
    for (const protocolVersion of ['2025-11-25', 'auto'] as const) {
      const { client } = await askerClient('2025-11-25', protocolVersion);
      expect(await initializeParams(client)).toEqual({
        protocolVersion: '2025-11-25',
        clientInfo: INFO,
        capabilities: { ...DECLARED, roots: { listChanged: true } },
      });
    }
  });
});

describe('a server request its revision lacks', () => {
  it.each(['2024-11-05', '2025-03-26'] as const)(
    '%s: elicitation/create is -32601 (no such method there), and no handler runs',
    async (revision) => {
      for (const protocolVersion of [revision, 'auto'] as const) {
        const { client, asked } = await askerClient(revision, protocolVersion);
        for (const params of [form, url])
          expect(await ask(client, 'elicitation/create', params)).toEqual({
            error: {
              code: -32601,
              message: `Method not found: elicitation/create does not exist in protocol version ${revision}`,
            },
          });
        // What the revision has is answered.
        expect((await ask(client, 'sampling/createMessage', sampling)).result).toMatchObject({ model: 'm' });
        expect((await ask(client, 'roots/list', undefined)).result).toEqual({
          roots: [{ uri: 'file:///work' }],
        });
        expect(asked).toEqual(['sample']);
      }
    },
  );

  it.each(['2024-11-05', '2025-03-26', '2025-06-18'] as const)(
    '%s: sampling with tools is -32602, and no handler runs',
    async (revision) => {
      for (const protocolVersion of [revision, 'auto'] as const) {
        const { client, asked } = await askerClient(revision, protocolVersion);
        for (const [, params] of SAMPLING_WITH_TOOLS)
          expect(await ask(client, 'sampling/createMessage', params)).toEqual({
            error: {
              code: -32602,
              message: `Invalid params for sampling/createMessage: sampling with tools does not exist in protocol version ${revision}`,
            },
          });
        expect(asked).toEqual([]);
      }
    },
  );

  it('2025-06-18: URL-mode elicitation is -32602, and no handler runs; a form is answered', async () => {
    for (const protocolVersion of ['2025-06-18', 'auto'] as const) {
      const { client, asked } = await askerClient('2025-06-18', protocolVersion);
      expect(await ask(client, 'elicitation/create', url)).toEqual({
        error: {
          code: -32602,
          message:
            'Invalid params for elicitation/create: URL-mode elicitation does not exist in protocol version 2025-06-18',
        },
      });
      expect(await ask(client, 'elicitation/create', form)).toEqual({ result: { action: 'decline' } });
      expect(asked).toEqual(['elicit form']);
    }
  });

  it('2025-11-25: URL-mode elicitation and sampling with tools reach the handlers', async () => {
    const { client, asked } = await askerClient('2025-11-25');
    expect(await ask(client, 'elicitation/create', url)).toEqual({ result: { action: 'decline' } });
    for (const [, params] of SAMPLING_WITH_TOOLS)
      expect((await ask(client, 'sampling/createMessage', params)).result).toMatchObject({ model: 'm' });
    expect(asked).toEqual(['elicit url', 'sample', 'sample', 'sample', 'sample']);
  });
});
