// A question of a stdio upstream (the official SDK 1.x server) that names no call, asked while one host has
// two requests in flight there: the gateway relays it to that host as the oldest request's. When that
// request ends (cancelled, or answered) before the host answers, the host's client gets
// `notifications/cancelled` for the relayed request; the question is the host's still (its other call,
// `ask_form`, asked it, and is in flight), so it is asked again as part of that call, and the host's answer
// reaches the upstream (it used to be withdrawn: the call that asked got "The gateway withdrew …"). With no
// request of the host's left there, it is withdrawn (test/gateway-question-heir.test.ts). Hosts: the
// official SDK 1.x client spawning `toolwire gateway --stdio` or on the gateway's Streamable HTTP, and a
// toolwire client linked in memory to a gateway run as a library.
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../src/gateway/index.js';
import { linkServer } from './_setup.js';
import { sdkGatewayTransport, writeConfig } from './_gateway.js';
import { servedGateway } from './_served-gateway.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/sdk-asking-server.mjs', import.meta.url));
const UPSTREAMS = { sdk: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' as const } };

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A promise and the function that resolves it. */
function signalled<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * What the host saw: the question once asked, the reason of its cancellation once cancelled, and the question
 * once asked again.
 */
function question() {
  return { asked: signalled<string>(), cancelled: signalled<unknown>(), again: signalled<string>() };
}

/** What the host answers the question asked again. */
const ANSWER = { action: 'accept', content: { name: 'Ada' } } as const;

/**
 * An SDK 1.x host that answers a form only when it is asked again (the first waits until it is cancelled),
 * on `toolwire gateway --stdio` (or on `transport`). What it saw is read off the wire: the question, the
 * `notifications/cancelled` that names it, and the question asked again.
 */
async function sdkHost(seen: ReturnType<typeof question>, transport?: Transport): Promise<ClientV1> {
  const client = new ClientV1({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  let forms = 0;
  client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
    if (forms++ > 0) return ANSWER;
    await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
    return { action: 'decline' };
  });
  transport ??= sdkGatewayTransport(writeConfig({ upstreams: UPSTREAMS, policy: { default: 'allow' } }));
  await client.connect(transport);
  cleanup.push(() => client.close());
  const received = transport.onmessage!;
  let asked: RequestId | undefined;
  transport.onmessage = (message) => {
    if ('method' in message) {
      const params = message.params;
      if (message.method === 'elicitation/create' && 'id' in message) {
        if (asked === undefined) seen.asked.resolve(String(params?.message));
        else seen.again.resolve(String(params?.message));
        asked ??= message.id;
      }
      if (message.method === 'notifications/cancelled' && asked !== undefined && params?.requestId === asked)
        seen.cancelled.resolve(params?.reason);
    }
    received(message);
  };
  return client;
}

/** Starts `hold` for `client`; resolves once it runs upstream, with its result to come. Abort `stop` to cancel it. */
async function holding(client: ClientV1, stop: AbortController): Promise<{ held: Promise<unknown> }> {
  const running = signalled();
  const held = client.callTool({ name: 'sdk__hold', arguments: {} }, undefined, {
    signal: stop.signal,
    onprogress: () => running.resolve(),
  });
  held.catch(() => undefined);
  await running.promise;
  return { held };
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

const ENDED = 'the request this question was relayed for ended';

/** The host is asked the question again, as the asking call's, and that call gets the host's answer. */
async function expectAskedAgain(seen: ReturnType<typeof question>, asking: Promise<unknown>): Promise<void> {
  expect(await seen.again.promise).toBe('Your name?');
  expect(JSON.parse(text(await asking))).toEqual(ANSWER);
}

describe('a question relayed as the oldest call’s, on a stdio upstream', () => {
  it('is cancelled for the host, and asked again as its asking call’s, when the host cancels that call', async () => {
    const seen = question();
    const client = await sdkHost(seen);
    const stop = new AbortController();
    await holding(client, stop);
    const asking = client.callTool({ name: 'sdk__ask_form', arguments: {} });
    expect(await seen.asked.promise).toBe('Your name?');
    stop.abort();
    expect(await seen.cancelled.promise).toBe(ENDED);
    await expectAskedAgain(seen, asking);
  }, 30_000);

  it('is cancelled for the host, and asked again as its asking call’s, when that call is answered', async () => {
    const seen = question();
    const client = await sdkHost(seen);
    const { held } = await holding(client, new AbortController());
    const asking = client.callTool({ name: 'sdk__ask_form', arguments: {} });
    expect(await seen.asked.promise).toBe('Your name?');
    expect(text(await client.callTool({ name: 'sdk__release', arguments: {} }))).toBe('released 1');
    expect(text(await held)).toBe('released');
    expect(await seen.cancelled.promise).toBe(ENDED);
    await expectAskedAgain(seen, asking);
  }, 30_000);
});

describe('a question relayed as the oldest call’s, on a stdio upstream, to a Streamable HTTP host', () => {
  it('is cancelled for the host, and asked again as its asking call’s, when the host cancels that call', async () => {
    const { served } = await servedGateway({ upstreams: UPSTREAMS, policy: { default: 'allow' } }, cleanup);
    const seen = question();
    // The question comes on the held call's POST response stream; its cancellation after that stream ended.
    const client = await sdkHost(seen, new StreamableHTTPClientTransport(new URL(served.url!)));
    const stop = new AbortController();
    await holding(client, stop);
    const asking = client.callTool({ name: 'sdk__ask_form', arguments: {} });
    expect(await seen.asked.promise).toBe('Your name?');
    stop.abort();
    expect(await seen.cancelled.promise).toBe(ENDED);
    await expectAskedAgain(seen, asking);
  }, 30_000);
});

describe('a question relayed as the oldest prompt get’s, on a stdio upstream', () => {
  it('is cancelled for the host, and asked again as its asking call’s, when the host cancels that get', async () => {
    const held = signalled();
    const gateway = createGateway(
      { upstreams: UPSTREAMS, policy: { default: 'allow' } },
      { onLog: (line) => (line.includes('prompt held') ? held.resolve() : undefined) },
    );
    cleanup.push(() => gateway.close());
    await gateway.start();
    const seen = question();
    let asked = 0;
    const { client } = await linkServer(gateway.server, {
      protocolVersion: '2025-11-25',
      elicitation: async (params, { signal }) => {
        if (asked++ > 0) {
          seen.again.resolve(params.message);
          return ANSWER;
        }
        seen.asked.resolve(params.message);
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        seen.cancelled.resolve(signal.reason instanceof Error ? signal.reason.message : signal.reason);
        return { action: 'decline' };
      },
    });
    cleanup.push(() => client.close());
    const stop = new AbortController();
    client.getPrompt('sdk__held', {}, { signal: stop.signal }).catch(() => undefined);
    await held.promise;
    const asking = client.callTool('sdk__ask_form');
    expect(await seen.asked.promise).toBe('Your name?');
    stop.abort();
    await seen.cancelled.promise;
    await expectAskedAgain(seen, asking);
  }, 30_000);
});
