// A question of a stdio upstream that names no call (test/fixtures/question-fates-server.mjs), relayed to a
// host as part of the oldest of its calls there: when that call ends before the host answered, and another
// call of that host is in flight there, the question is the host's still (whichever of its calls asked) —
// it is asked again as part of that call, not withdrawn. Here the call that asks (B) is the one left: its
// question comes in the same write as the answer to the host's other call (A), so the gateway relays it as
// A's, which ends at once; B used to get "The gateway withdrew elicitation/create" though the host could
// answer. Hosts: a toolwire client on the gateway's Streamable HTTP, and the official SDK 1.x client
// spawning `toolwire gateway --stdio`.
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import type { JsonObject } from '../src/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import { sdkGatewayTransport, writeConfig } from './_gateway.js';
import { servedGateway } from './_served-gateway.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/question-fates-server.mjs', import.meta.url));
const UPSTREAMS = { fx: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };
const ANSWER = { action: 'accept', content: { n: 7 } } as const;

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** What a host does: a call (resolving once it runs upstream when `running` is asked for), the forms it saw. */
interface Host {
  call(name: string, args: JsonObject, running?: () => void): Promise<unknown>;
  asked: string[];
}

/** A toolwire host on the gateway's Streamable HTTP; `elicitation` answers its forms (default `ANSWER`). */
async function toolwireHost(
  elicitation: NonNullable<ClientOptions['elicitation']> = () => ANSWER,
): Promise<Host & { client: Client }> {
  const { served } = await servedGateway({ upstreams: UPSTREAMS, policy: { default: 'allow' } }, cleanup);
  const asked: string[] = [];
  const client = new Client(
    { name: 'host', version: '1.0.0' },
    {
      protocolVersion: '2025-11-25',
      elicitation: (params, ctx) => {
        asked.push(params.message);
        return elicitation(params, ctx);
      },
    },
  );
  await client.connect(new StreamableHttpClientTransport({ url: served.url! }));
  cleanup.push(() => client.close());
  return {
    client,
    asked,
    call: (name, args, running) =>
      client.callTool(name, args, running ? { onProgress: () => running() } : {}),
  };
}

async function sdkHost(): Promise<Host> {
  const asked: string[] = [];
  const client = new ClientV1({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return ANSWER;
  });
  await client.connect(
    sdkGatewayTransport(writeConfig({ upstreams: UPSTREAMS, policy: { default: 'allow' } })),
  );
  cleanup.push(() => client.close());
  return {
    asked,
    call: (name, args, running) =>
      client.callTool({ name, arguments: args }, undefined, running ? { onprogress: () => running() } : {}),
  };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe.each([
  ['a toolwire host over Streamable HTTP', toolwireHost],
  ['an SDK 1.x host over stdio', sdkHost],
] as const)('%s, two calls in flight on one stdio upstream', (_host, start) => {
  it("gets the question of its call that asks as the other ends (it was relayed as the other's), and answers it", async () => {
    const host = await start();
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const a = host.call('fx__hold', { tag: 'a' }, running);
    await started;
    // B's question comes in the same write as A's answer: A was the oldest call there as it came.
    const b = await host.call('fx__ask', { tag: 'b', finish: 'a' });
    expect(text(await a)).toBe('released');
    expect(JSON.parse(text(b))).toEqual([ANSWER]);
    expect(new Set(host.asked)).toEqual(new Set(['question b#0']));
  });
});

describe('a toolwire host over Streamable HTTP, its question relayed as its oldest call’s', () => {
  it('is withdrawn when that call ends and no call of the host’s is left there: the upstream is told so', async () => {
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => (asked = resolve));
    // The host leaves the form open until the gateway cancels it.
    const host = await toolwireHost(
      (_params, { signal }) =>
        new Promise((resolve) => {
          asked();
          signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true });
        }),
    );
    const stopA = new AbortController();
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    const a = host.client
      .callTool('fx__hold', { tag: 'a' }, { signal: stopA.signal, onProgress: () => running() })
      .catch((error: unknown) => error);
    await started;
    // B asks while A is in flight: relayed as A's. B is cancelled, then A: nobody is left to take it.
    const stopB = new AbortController();
    const b = host.client
      .callTool('fx__ask', { tag: 'b' }, { signal: stopB.signal })
      .catch((e: unknown) => e);
    await waiting;
    stopB.abort(new Error('enough'));
    await b;
    stopA.abort(new Error('enough'));
    await a;
    await expect
      .poll(async () => {
        const fates = JSON.parse(text(await host.call('fx__fates', {}))) as { questions: JsonObject };
        return fates.questions['b#0'];
      })
      .toBe(
        'error -32603: The gateway withdrew elicitation/create: the request it was relayed for ended before its caller answered',
      );
  });
});
