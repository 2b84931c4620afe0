// Questions of a handshake-era HTTP upstream (the official SDK 1.x server) on its standalone GET stream,
// which nothing ties to a request: the gateway's client gives such a question to the only call in flight
// with handlers of its own, though another host's call (one that may be asked nothing) may have asked it.
// Before, only a stdio upstream's were checked (`CallsInFlight.owner`): over HTTP that host answered the
// other's question. A question on a call's own POST stream is that call's, whoever else has calls there.
import { afterEach, describe, expect, it } from 'vitest';
import { Client, type ClientOptions } from '../src/client/index.js';
import { createGateway, type Gateway } from '../src/gateway/index.js';
import type { CallToolResult } from '../src/index.js';
import { createLinkedPair } from '../src/transports/in-memory.js';
import { closeAll, sdkStreamableServer } from './_http-client.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  await closeAll();
});

async function gateway(): Promise<Gateway> {
  const upstream = await sdkStreamableServer(false, { askOnGet: true });
  const gateway = createGateway(
    {
      upstreams: { sdk: { url: upstream.url, protocolVersion: '2025-11-25' } },
      policy: { default: 'allow' },
    },
    { onLog: () => undefined },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  return gateway;
}

/** A host on a connection of its own; with `name`, it declares elicitation and answers every form so. */
async function host(gateway: Gateway, name?: string): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const options: ClientOptions = { protocolVersion: '2025-11-25' };
  if (name !== undefined)
    options.elicitation = (params) => {
      asked.push(params.message);
      return { action: 'accept', content: { name } };
    };
  const [clientEnd, serverEnd] = createLinkedPair();
  await gateway.server.connect(serverEnd);
  const client = new Client({ name: 'host', version: '1.0.0' }, options);
  await client.connect(clientEnd);
  cleanup.push(() => client.close());
  return { client, asked };
}

/** Starts `sdk__hold` for `client`; resolves once it runs upstream. */
async function holding(client: Client): Promise<void> {
  const stop = new AbortController();
  cleanup.push(async () => stop.abort());
  let running!: () => void;
  const started = new Promise<void>((resolve) => (running = resolve));
  void client
    .callTool('sdk__hold', {}, { signal: stop.signal, onProgress: () => running() })
    .catch(() => undefined);
  await started;
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe("an HTTP upstream's question on its standalone stream while calls of several hosts are in flight", () => {
  it("is refused, and reaches no other host, when the other host's call is the only one that may be asked", async () => {
    const gw = await gateway();
    const other = await host(gw, 'Eve');
    const asking = await host(gw);
    await holding(other.client);
    const result = await asking.client.callTool('sdk__ask_on_get', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'MCP error -32602: The gateway could not relay elicitation/create: several callers have calls in flight on this server, and nothing says whose call asks',
    );
    expect(other.asked).toEqual([]);
  });

  it("reaches the host when every call in flight is that host's", async () => {
    const gw = await gateway();
    const asking = await host(gw, 'Ada');
    await holding(asking.client);
    expect(text(await asking.client.callTool('sdk__ask_on_get', {}))).toBe('hello Ada');
    expect(asking.asked).toEqual(['Your name?']);
  });

  it("on the call's own POST stream still reaches its host while another host's call is in flight", async () => {
    const gw = await gateway();
    const other = await host(gw, 'Eve');
    const asking = await host(gw, 'Ada');
    await holding(other.client);
    expect(text(await asking.client.callTool('sdk__ask', {}))).toBe('hello Ada');
    expect(other.asked).toEqual([]);
  });
});
