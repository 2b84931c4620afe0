// The decision API's 503 when its shared store (a real Redis, stopped here) fails: the caller is told which
// store and operation failed and when to try again, never why (Redis's reply, where Redis is); the whole
// error goes to the gateway's log — a real `toolwire gateway --redis` process's stderr — or, in code, to the
// downstream server's `onError`, as the MCP endpoint's 503 does (whose whole error the command logs too). The same for a model's call that needs
// approval then: its isError result names the store, not where Redis is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../src/client/index.js';
import { createGateway, serveGateway, type Gateway, type GatewayHttpHandle } from '../src/gateway/index.js';
import type { CallToolResult } from '../src/index.js';
import {
  PROTOCOL_FIXTURE,
  startGateway,
  toolwireUpstream,
  waitForLine,
  writeConfig,
  type RunningGateway,
} from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';
import { linkServer } from './_setup.js';

const UPSTREAMS = { fx: toolwireUpstream(PROTOCOL_FIXTURE) };

let redis: RedisServerHandle;
let command: RunningGateway;
let library: Gateway;
let served: GatewayHttpHandle;
let model: Client;
let unlink: (() => Promise<void>) | undefined;
const heard: Error[] = [];

beforeAll(async () => {
  redis = await startRedis();
  command = await startGateway(['--config', writeConfig({ upstreams: UPSTREAMS }), '--redis', redis.url]);
  library = createGateway(
    { upstreams: UPSTREAMS, redis: redis.url },
    { onLog: () => undefined, server: { onError: (error) => heard.push(error) } },
  );
  await library.start();
  served = await serveGateway(library, { port: 0, mcp: false, console: false });
  const linked = await linkServer(library.server);
  model = linked.client;
  unlink = () => linked.close();
  await redis.stop();
});

afterAll(async () => {
  await unlink?.();
  await command?.close();
  await served?.close();
  await library?.close();
  await redis?.close();
});

interface Refusal {
  error: { code: string; message: string; store?: string; operation?: string };
}

describe("the decision API's 503 when Redis is out of reach", () => {
  it("names the store and the operation, with Retry-After; the whole error is on the gateway command's stderr", async () => {
    const response = await command.api('/approvals');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as Refusal;
    expect(body).toEqual({
      error: {
        code: 'STORE_UNAVAILABLE',
        message: 'Redis approval store: pending failed; try again later',
        store: 'Redis approval store',
        operation: 'pending',
      },
    });
    expect(JSON.stringify(body)).not.toContain(String(redis.port));
    const [line] = await waitForLine(
      () => command.stderr(),
      /the decision API answered GET \/api\/approvals with 503: StoreError: Redis approval store: pending failed: [^\n]+/,
      command.child,
    );
    // Why: where Redis is, and what became of the connection.
    expect(line).toContain(`127.0.0.1:${redis.port}`);
    const decision = await command.api('/approvals/a0/approve', { body: {} });
    expect(decision.status).toBe(503);
    expect(((await decision.json()) as Refusal).error).toMatchObject({
      store: 'Redis approval store',
      message: expect.not.stringContaining(String(redis.port)) as unknown,
    });
  });

  it("logs the whole error behind the MCP endpoint's 503 on the gateway command's stderr too", async () => {
    const response = await fetch(command.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'model', version: '1.0.0' },
        },
      }),
    });
    expect(response.status).toBe(503);
    expect(await response.text()).not.toContain(String(redis.port));
    const [line] = await waitForLine(
      () => command.stderr(),
      /toolwire gateway: error: StoreError: Redis session store: [^\n]+/,
      command.child,
    );
    expect(line).toContain(`127.0.0.1:${redis.port}`);
  });

  it("tells the downstream server's onError the whole error, in code", async () => {
    const response = await fetch(`${served.apiUrl}/approvals`, {
      headers: { authorization: `Bearer ${served.api.token}` },
    });
    expect(response.status).toBe(503);
    const body = (await response.json()) as Refusal;
    expect(body.error.message).toBe('Redis approval store: pending failed; try again later');
    const told = heard.find((error) => error.message.startsWith('Redis approval store: pending failed: '));
    expect(told?.name).toBe('StoreError');
    expect(told?.message).toContain(`127.0.0.1:${redis.port}`);
  });

  it("refuses a model's call that needs approval naming the store, not where Redis is; onError hears the rest", async () => {
    const before = heard.length;
    const result = (await model.callTool('fx__echo', { text: 'held?' })) as CallToolResult;
    expect(result.isError).toBe(true);
    const said = (result.content[0] as { text: string }).text;
    expect(said).toMatch(
      /^The gateway could not hold the call of fx__echo for approval: the approval store is unavailable \(Redis \w+ store: \w+ failed\); try again later/,
    );
    expect(said).not.toContain(String(redis.port));
    const told = heard.slice(before).find((error) => error.name === 'StoreError');
    expect(told?.message).toContain(`127.0.0.1:${redis.port}`);
  });
});
