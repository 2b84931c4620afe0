// A caller's request `_meta` through the gateway to official-SDK upstreams (SDK 1.x and 2.x servers over
// stdio, whose `meta` tool, `meta` prompt and `meta://v1` / `meta://v2` resource answer with the `_meta`
// they got), on `tools/call`, `prompts/get` and `resources/read`: the W3C trace context and the caller's own
// keys reach the upstream; what belongs to the caller's connection (its progress token, the keys the
// protocol reserves) does not. Downstream: the official SDK 1.x client spawning `toolwire gateway --stdio`
// as a host does, and a toolwire client in the stateless era (2026-07-28), whose `_meta` carries the era's
// keys on every request.
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, linkedGateway, sdkGatewayTransport, writeConfig } from './_gateway.js';

const META_SERVER = fileURLToPath(new URL('./fixtures/sdk-meta-server.mjs', import.meta.url));
/** A toolwire server whose prompt `meta` completes `word` with the `_meta` the request came with. */
const COMPLETION_SERVER = fileURLToPath(new URL('./fixtures/meta-completion-server.mjs', import.meta.url));

const TRACE = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'vendor=opaque',
  baggage: 'tenant=acme',
};

/** The `_meta` the upstream's `meta` tool saw, from its text answer. */
const seen = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as unknown;
/** The `_meta` the upstream's `meta` prompt saw, from its message. */
const promptSaw = (result: { messages: { content: unknown }[] }) =>
  JSON.parse((result.messages[0]!.content as { text: string }).text) as unknown;
/** The `_meta` the upstream's `meta://…` resource saw, from its contents. */
const readSaw = (result: { contents: unknown[] }) =>
  JSON.parse((result.contents[0] as { text: string }).text) as unknown;

/** What a caller sends: the trace context, a key of its own, and keys that are not its to pass on. */
const SENT = {
  ...TRACE,
  'com.example/tenant': 'acme',
  'io.modelcontextprotocol/related-task': { taskId: 'not-the-upstreams' },
  'dev.mcp/reserved': true,
  progressToken: 'the-callers',
};
/** What of it reaches the upstream. */
const PASSED = { ...TRACE, 'com.example/tenant': 'acme' };

describe('a handshake-era caller (SDK 1.x over stdio)', () => {
  let client: ClientV1;

  beforeAll(async () => {
    const config = writeConfig({
      upstreams: {
        v1: { command: process.execPath, args: [META_SERVER], stderr: 'ignore' },
        v2: { command: process.execPath, args: [META_SERVER, '--v2'], stderr: 'ignore' },
      },
      policy: { default: 'allow' },
    });
    client = new ClientV1({ name: 'host', version: '1.0.0' });
    await client.connect(sdkGatewayTransport(config));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  it.each(['v1', 'v2'])(
    "passes its trace context and its own keys on to the %s upstream, and keeps the protocol's to itself",
    async (upstream) => {
      const result = await client.callTool({
        name: `${upstream}__meta`,
        arguments: {},
        _meta: {
          ...TRACE,
          'com.example/tenant': 'acme',
          'io.modelcontextprotocol/related-task': { taskId: 'not-the-upstreams' },
          'dev.mcp/reserved': true,
        },
      });
      expect(seen(result)).toEqual({ ...TRACE, 'com.example/tenant': 'acme' });
    },
  );

  it.each(['v1', 'v2'])(
    "passes a prompt get's trace context and own keys on to the %s upstream, not the protocol's",
    async (upstream) => {
      const result = await client.getPrompt({ name: `${upstream}__meta`, _meta: SENT });
      expect(promptSaw(result)).toEqual(PASSED);
    },
  );

  it.each(['v1', 'v2'])(
    "passes a resource read's trace context and own keys on to the %s upstream, not the protocol's",
    async (upstream) => {
      const result = await client.readResource({ uri: `meta://${upstream}`, _meta: SENT });
      expect(readSaw(result)).toEqual(PASSED);
    },
  );

  it("keeps the caller's progress token to itself: the upstream gets the gateway's own", async () => {
    const progress: unknown[] = [];
    const result = await client.callTool(
      { name: 'v1__meta', arguments: {}, _meta: { traceparent: TRACE.traceparent } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    const meta = seen(result) as Record<string, unknown>;
    expect(meta).toEqual({ traceparent: TRACE.traceparent, progressToken: expect.anything() });
  });
});

describe('a stateless-era caller (toolwire client, 2026-07-28)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  });

  it("passes its trace context on, not the era's keys its every request carries", async () => {
    const client = await linkedGateway('v1', [META_SERVER], { protocolVersion: '2026-07-28' }, cleanup);
    const result = await client.callTool(
      'v1__meta',
      {},
      { meta: { ...TRACE, 'com.example/tenant': 'acme' } },
    );
    expect(seen(result)).toEqual({ ...TRACE, 'com.example/tenant': 'acme' });
  });

  it("passes a prompt get's and a resource read's trace context on, not the era's keys", async () => {
    const client = await linkedGateway('v1', [META_SERVER], { protocolVersion: '2026-07-28' }, cleanup);
    expect(promptSaw(await client.getPrompt('v1__meta', {}, { meta: SENT }))).toEqual(PASSED);
    expect(readSaw(await client.readResource('meta://v1', { meta: SENT }))).toEqual(PASSED);
  });
});

describe('a handshake-era caller (toolwire client, 2025-11-25)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  });

  it("passes a prompt get's and a resource read's trace context and own keys on", async () => {
    const client = await linkedGateway(
      'v2',
      [META_SERVER, '--v2'],
      { protocolVersion: '2025-11-25' },
      cleanup,
    );
    expect(promptSaw(await client.getPrompt('v2__meta', {}, { meta: SENT }))).toEqual(PASSED);
    expect(readSaw(await client.readResource('meta://v2', { meta: SENT }))).toEqual(PASSED);
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)('a completion request (toolwire client, %s)', (era) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  });

  it("passes its trace context and own keys on to the upstream's completer, not the protocol's", async () => {
    const client = await linkedGateway(
      'tw',
      [BIN, 'serve', COMPLETION_SERVER],
      { protocolVersion: era },
      cleanup,
    );
    const ref = { type: 'ref/prompt', name: 'tw__meta' } as const;
    const { values } = await client.complete(ref, { name: 'word', value: '' }, undefined, { meta: SENT });
    expect(JSON.parse(values[0]!)).toEqual(PASSED);
  });
});
