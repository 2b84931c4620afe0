// Questions of a stdio upstream (the official SDK 1.x server), where nothing on the wire says which call
// asks, while several calls are in flight there: when every one comes from one host's connection, the
// question is that host's whichever of its calls asked, and it is relayed; when they come from different
// hosts, nobody is asked (the elicitation is refused with -32602 saying so: declining it would tell the
// upstream a person said no), and no host ever gets another's question.
// Downstream: official SDK 1.x hosts, each its own Streamable HTTP session of the gateway.
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import { createGateway, serveGateway } from '../src/gateway/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/sdk-asking-server.mjs', import.meta.url));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A gateway over HTTP in front of the SDK 1.x fixture over stdio (`sdk`); `onLog` gets its log lines. */
async function start(onLog: (line: string) => void = () => undefined): Promise<URL> {
  const gateway = createGateway(
    {
      upstreams: { sdk: { command: process.execPath, args: [FIXTURE], stderr: 'ignore' } },
      policy: { default: 'allow' },
    },
    { onLog },
  );
  cleanup.push(() => gateway.close());
  await gateway.start();
  const served = await serveGateway(gateway, { port: 0, console: false });
  cleanup.push(() => served.close());
  return new URL(served.url!);
}

/** An SDK 1.x host; with `asked`, it declares elicitation and answers every form with `{ name }`. */
async function host(url: URL, name?: string): Promise<{ client: ClientV1; asked: string[] }> {
  const asked: string[] = [];
  const client = new ClientV1(
    { name: 'host', version: '1.0.0' },
    { capabilities: name === undefined ? {} : { elicitation: {} } },
  );
  if (name !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { name } };
    });
  await client.connect(new StreamableHTTPClientTransport(url));
  cleanup.push(() => client.close());
  return { client, asked };
}

/** Starts `hold` for `client` and resolves once it runs upstream; abort `stop` to end it. */
async function holding(client: ClientV1, stop: AbortController): Promise<void> {
  let running!: () => void;
  const started = new Promise<void>((resolve) => (running = resolve));
  void client
    .callTool({ name: 'sdk__hold', arguments: {} }, undefined, {
      signal: stop.signal,
      onprogress: () => running(),
    })
    .catch(() => undefined);
  await started;
}

/** What `asking` got for `ask_form`, called while `hold` runs for `holder`. */
async function askWhileHolding(holder: ClientV1, asking: ClientV1): Promise<unknown> {
  const stop = new AbortController();
  await holding(holder, stop);
  const result = await asking.callTool({ name: 'sdk__ask_form', arguments: {} });
  stop.abort();
  return answer(result);
}

const answer = (result: unknown) => {
  const { content, isError } = result as { content: { text: string }[]; isError?: boolean };
  const text = content[0]!.text;
  return isError ? { isError, text } : (JSON.parse(text) as unknown);
};

/** What `ask_form` returns when its elicitation is refused: nobody may be asked (another caller's call may ask). */
const NOT_MINE = {
  isError: true,
  text: 'MCP error -32602: The gateway could not relay elicitation/create: several callers have calls in flight on this server, and nothing says whose call asks',
};

/** What `ask_form` returns when the gateway's client has no call's handlers to give its elicitation to. */
const NO_CALLER = {
  isError: true,
  text: 'MCP error -32602: The gateway could not relay elicitation/create: the client of the call did not declare elicitation, no call is in flight on this server, or several calls in flight there leave unclear whose call asks; nobody was asked',
};

describe("a stdio upstream's question while several calls are in flight there", () => {
  it("reaches the host when every call in flight is that host's", async () => {
    const url = await start();
    const { client, asked } = await host(url, 'Ada');
    expect(await askWhileHolding(client, client)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(asked).toEqual(['Your name?']);
  }, 30_000);

  it("is refused, and reaches no other host, when another host's call is in flight", async () => {
    const url = await start();
    // The other host may be asked; the one whose call asks may be asked nothing (its call, which brings
    // no handlers upstream, is not the only one with handlers there).
    const other = await host(url, 'Eve');
    const asking = await host(url);
    expect(await askWhileHolding(other.client, asking.client)).toEqual(NOT_MINE);
    expect(other.asked).toEqual([]);
  }, 30_000);

  it("is refused when both hosts' calls may be asked", async () => {
    const url = await start();
    const other = await host(url, 'Eve');
    const asking = await host(url, 'Ada');
    expect(await askWhileHolding(other.client, asking.client)).toEqual(NO_CALLER);
    expect(other.asked).toEqual([]);
    expect(asking.asked).toEqual([]);
  }, 30_000);

  it("is refused, and reaches no other host, when another host's prompt get is in flight", async () => {
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const url = await start((line) => {
      if (line.includes('prompt held')) held();
    });
    // The other host's prompt get is the only request there that may be asked.
    const other = await host(url, 'Eve');
    const stop = new AbortController();
    void other.client
      .getPrompt({ name: 'sdk__held', arguments: {} }, { signal: stop.signal })
      .catch(() => undefined);
    await holding;
    const asking = await host(url);
    const result = await asking.client.callTool({ name: 'sdk__ask_form', arguments: {} });
    stop.abort();
    expect(answer(result)).toEqual(NOT_MINE);
    expect(other.asked).toEqual([]);
  }, 30_000);

  it("is refused, and reaches no stateless-era caller, when that caller's call is the other one in flight", async () => {
    const url = await start();
    // A stateless-era caller that may be asked: its call runs upstream once over its rounds (held), and
    // on stdio nothing says that the question is not its call's.
    const asked: string[] = [];
    const stateless = new Client(
      { name: 'model', version: '1.0.0' },
      {
        protocolVersion: '2026-07-28',
        elicitation: (params) => {
          asked.push(params.message);
          return { action: 'accept', content: { name: 'Eve' } };
        },
      },
    );
    await stateless.connect(new StreamableHttpClientTransport({ url }));
    cleanup.push(() => stateless.close());
    const stop = new AbortController();
    let running!: () => void;
    const started = new Promise<void>((resolve) => (running = resolve));
    void stateless
      .callTool('sdk__hold', {}, { signal: stop.signal, onProgress: () => running() })
      .catch(() => undefined);
    await started;
    const asking = await host(url);
    const result = await asking.client.callTool({ name: 'sdk__ask_form', arguments: {} });
    stop.abort();
    expect(answer(result)).toEqual(NOT_MINE);
    expect(asked).toEqual([]);
  }, 30_000);
});
