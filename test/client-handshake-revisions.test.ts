// A toolwire client speaks the handshake-era revision it negotiated, over stdio with a raw server
// (scripts/attack/fixtures/hostile-server.mjs with `--revision`: it answers `initialize` with the revision
// named and records the client's params). Pinned to a revision, the client's `initialize` carries only
// what that revision defines (clientInfo, capabilities).
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
