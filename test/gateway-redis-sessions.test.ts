// Two `toolwire gateway --redis URL` processes behind a round-robin balancer (test/_round-robin.ts): the
// gateways share their handshake-era MCP sessions, as `toolwire serve --redis` does, so a host's client
// needs no sticky routing. The official SDK 1.x client opens a session through the balancer and uses it on
// both instances (a list, calls, an upstream's elicitation relayed, a call held for approval and decided);
// a session id neither instance ever issued is 404 on both; DELETE through one ends it on the other; an
// upstream's resources/updated reaches the session's stream whichever instance holds it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startGateway,
  toolwireUpstream,
  writeConfig,
  type GatewayEventData,
  type RunningGateway,
} from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { roundRobin, type RoundRobin } from './_round-robin.js';

let redis: RedisServerHandle;
let a: RunningGateway;
let b: RunningGateway;
let proxy: RoundRobin;

/** The protocol fixture and a `change` tool that sends resources/updated for the URIs it is given. */
const LISTEN = fileURLToPath(new URL('./fixtures/listen-server.mjs', import.meta.url));
const CONFIG = {
  upstreams: { fx: toolwireUpstream(LISTEN) },
  policy: { rules: [{ upstream: 'fx', tool: 'echo', action: 'ask' }], default: 'allow' },
};

const textOf = (result: object) =>
  ('content' in result ? (result.content as { text?: string }[]) : undefined)?.[0]?.text;

beforeAll(async () => {
  redis = await startRedis();
  const config = writeConfig(CONFIG);
  [a, b] = await Promise.all([
    startGateway(['--config', config, '--redis', redis.url]),
    startGateway(['--config', config, '--redis', redis.url]),
  ]);
  proxy = await roundRobin([a.url, b.url]);
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all([a?.close(), b?.close()]);
  await redis?.close();
});

/** The SDK 1.x client of a handshake-era session opened through the balancer. */
async function sessionClient(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }));
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.base}/mcp`));
  await client.connect(transport);
  return { client, transport };
}

/** A request of the session sent to one instance (not through the balancer); resolves once answered. */
async function post(url: string, sessionId: string, method: string, params: Record<string, unknown> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await response.text();
  return { status: response.status, body };
}

describe('gateways sharing their MCP sessions on Redis', () => {
  it('serve a session opened through one on the other: lists, calls, a relayed question', async () => {
    const { client, transport } = await sessionClient();
    try {
      expect(transport.sessionId).toEqual(expect.any(String));
      const before = [...proxy.served];
      const tools = await client.listTools();
      expect(tools.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['fx__add', 'fx__ask']));
      for (let i = 0; i < 4; i++) {
        const sum = await client.callTool({ name: 'fx__add', arguments: { a: i, b: 1 } });
        expect(sum.structuredContent).toEqual({ sum: i + 1 });
      }
      expect(textOf(await client.callTool({ name: 'fx__ask', arguments: {} }))).toBe('accept:Ada');
      // Both instances served requests of the session after its initialize.
      expect(proxy.served.map((count, i) => count - before[i]!).every((count) => count > 0)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('holds a call of the session for approval, decided through either instance', async () => {
    const { client } = await sessionClient();
    try {
      const events = await b.events();
      const call = client.callTool({ name: 'fx__echo', arguments: { text: 'held' } });
      const pending = await events.next(
        'approval.pending',
        (event: GatewayEventData) =>
          (event.approval as { arguments: { text?: string } }).arguments.text === 'held',
      );
      const id = (pending.approval as { id: string }).id;
      expect((await a.api(`/approvals/${id}/approve`, { body: {} })).status).toBe(200);
      expect(textOf(await call)).toBe('held');
    } finally {
      await client.close();
    }
  });

  it('404 for a session id neither issued; DELETE through one ends the session on the other', async () => {
    const { client, transport } = await sessionClient();
    const sessionId = transport.sessionId!;
    await client.listTools();
    for (const gateway of [a, b]) {
      expect((await post(gateway.url, sessionId, 'ping')).status).toBe(200);
      expect((await post(gateway.url, 'not-a-session', 'ping')).status).toBe(404);
    }
    const ended = await fetch(a.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
    });
    expect(ended.status).toBe(200);
    expect((await post(b.url, sessionId, 'ping')).status).toBe(404);
    await client.close();
  });

  it("relays an upstream's resources/updated to the session, whichever instance holds its stream", async () => {
    const { client, transport } = await sessionClient();
    const got: string[] = [];
    const waiting = new Map<string, () => void>();
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => {
      got.push(params.uri);
      waiting.get(params.uri)?.();
    });
    const next = (uri: string) =>
      got.includes(uri) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(uri, resolve));
    try {
      await client.listTools(); // the session's GET stream is open (on one of the two)
      // Subscribed and changed through each instance: one of them is not the one holding the stream.
      for (const [gateway, uri] of [
        [a, 'test://static-text'],
        [b, 'test://static-json'],
      ] as const) {
        const sessionId = transport.sessionId!;
        expect((await post(gateway.url, sessionId, 'resources/subscribe', { uri })).status).toBe(200);
        const changed = await post(gateway.url, sessionId, 'tools/call', {
          name: 'fx__change',
          arguments: { updated: [uri] },
        });
        expect(changed.body).toContain('changed');
        await next(uri);
      }
      expect(got).toEqual(['test://static-text', 'test://static-json']);
    } finally {
      await client.close();
    }
  });
});
