// A caller's request `_meta` through the gateway to official-SDK upstreams (SDK 1.x and 2.x servers over
// stdio, whose `meta` tool answers with the `_meta` it got): the W3C trace context and the caller's own
// keys reach the upstream; what belongs to the caller's connection (its progress token, the keys the
// protocol reserves) does not. Downstream: the official SDK 1.x client spawning `toolwire gateway --stdio`
// as a host does, and a toolwire client in the stateless era (2026-07-28), whose `_meta` carries the era's
// keys on every request.
import { fileURLToPath } from 'node:url';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkedGateway, sdkGatewayTransport, writeConfig } from './_gateway.js';

const META_SERVER = fileURLToPath(new URL('./fixtures/sdk-meta-server.mjs', import.meta.url));

const TRACE = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'vendor=opaque',
  baggage: 'tenant=acme',
};

/** The `_meta` the upstream's `meta` tool saw, from its text answer. */
const seen = (result: unknown) =>
  JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as unknown;

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
});
