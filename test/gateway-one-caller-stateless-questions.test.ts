// One stateless-era caller with two calls in flight on one stdio upstream (test/fixtures/question-fates-server
// .mjs, a child process that records what each of its questions got): a question the upstream asks then
// names no call (nothing on stdio does), and a stateless-era request has no connection to tell whose it is —
// but both calls are that caller's, so the question is its whichever asked, as a handshake-era host's is
// when every request there came on its connection: it is asked of the caller (in the oldest call's next
// round) and its answer reaches the upstream. The caller: a principal's toolwire client over Streamable
// HTTP (its requests are one caller's by their principal), and the gateway's one host (`connectHost`, in
// memory here, stdio for `toolwire gateway --stdio`: while it is the server's only connection, every request
// is its). Before, the question was refused with -32602 ("… several callers have calls in flight on this
// server …"). Two principals' calls still leave it refused: no caller gets another's question.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway } from '../src/gateway/index.js';
import type { ElicitResult } from '../src/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { apiKeyVerifier } from '../src/transports/http/auth/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/question-fates-server.mjs', import.meta.url));
const UPSTREAMS = { fx: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };
const ANSWER: ElicitResult = { action: 'accept', content: { n: 7 } };
const AUTH = {
  verifier: apiKeyVerifier({ 'ada-key': { subject: 'ada' }, 'bob-key': { subject: 'bob' } }),
  resource: 'http://127.0.0.1/mcp',
  authorizationServers: ['https://auth.example.com'],
};

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function startGateway() {
  const gateway = createGateway(
    { upstreams: UPSTREAMS, policy: { default: 'allow' } },
    { onLog: () => undefined },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  return gateway;
}

/** A stateless-era toolwire client (2026-07-28) that answers every form with `ANSWER`; `asked` lists them. */
function statelessClient(asked: string[]): Client {
  const client = new Client(
    { name: 'model', version: '1.0.0' },
    {
      protocolVersion: '2026-07-28',
      elicitation: (params) => {
        asked.push(params.message);
        return ANSWER;
      },
    },
  );
  cleanup.push(() => client.close());
  return client;
}

/** A principal's client on the gateway's Streamable HTTP. */
async function overHttp(
  key: string,
  url?: string,
): Promise<{ client: Client; asked: string[]; url: string }> {
  let at = url;
  if (at === undefined) {
    const served = await serveGateway(await startGateway(), { port: 0, console: false, mcp: { auth: AUTH } });
    cleanup.push(() => served.close());
    at = served.url!;
  }
  const asked: string[] = [];
  const client = statelessClient(asked);
  await client.connect(new StreamableHttpClientTransport({ url: at, bearer: key }));
  return { client, asked, url: at };
}

/** The gateway's one host, linked in memory (as `toolwire gateway --stdio` serves its host over stdio). */
async function asHost(): Promise<{ client: Client; asked: string[] }> {
  const gateway = await startGateway();
  const [clientEnd, serverEnd] = createLinkedPair();
  await gateway.connectHost(serverEnd);
  const asked: string[] = [];
  const client = statelessClient(asked);
  await client.connect(clientEnd);
  return { client, asked };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/** Starts `fx__hold` (tag `a`) and resolves once it runs upstream (its progress), with the call itself. */
async function holding(client: Client): Promise<{ held: Promise<unknown> }> {
  let running!: () => void;
  const started = new Promise<void>((resolve) => (running = resolve));
  const held = client.callTool('fx__hold', { tag: 'a' }, { onProgress: () => running() });
  await started;
  return { held };
}

describe.each([
  ['a principal over Streamable HTTP', () => overHttp('ada-key')],
  ['the gateway’s one host', asHost],
] as const)('%s, two stateless-era calls in flight on one stdio upstream', (_caller, start) => {
  it('is asked the question one of them asks, and its answer reaches the upstream', async () => {
    const { client, asked } = await start();
    const { held: a } = await holding(client);
    // B asks while A is in flight: nothing on stdio says which asked, but both are this caller's.
    const b = await client.callTool('fx__ask', { tag: 'b' });
    expect(JSON.parse(text(b))).toEqual([ANSWER]);
    expect(asked).toEqual(['question b#0']);
    expect(text(await client.callTool('fx__release', { tag: 'a' }))).toBe('released');
    expect(text(await a)).toBe('released');
  });
});

describe('two principals, each with a stateless-era call in flight on one stdio upstream', () => {
  it('leave a question that names no call refused: neither is asked', async () => {
    const ada = await overHttp('ada-key');
    const bob = await overHttp('bob-key', ada.url);
    const { held: a } = await holding(ada.client);
    const b = await bob.client.callTool('fx__ask', { tag: 'b' });
    expect(JSON.parse(text(b))).toEqual([
      expect.stringMatching(/^error -32602: The gateway could not relay elicitation\/create: /),
    ]);
    expect([...ada.asked, ...bob.asked]).toEqual([]);
    expect(text(await ada.client.callTool('fx__release', { tag: 'a' }))).toBe('released');
    expect(text(await a)).toBe('released');
  });
});
