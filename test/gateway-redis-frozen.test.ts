// `toolwire gateway --redis URL` whose Redis freezes while a call is held for approval (CLIENT PAUSE WRITE:
// Redis holds the writes it has read until the pause ends, as a frozen Redis would). A decision made then is
// answered 503 at the command timeout (2 s); the gateway's connection then gives up the writes that timed
// out (before, they stayed held in Redis, to run whenever it thawed); once Redis thaws the gateway recovers
// by itself and the approval is still pending, decided as anyone decides it then. Redis pauses for at most
// PAUSE_MS whatever happens; every wait is for an answer or a state.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../src/client/index.js';
import type { CallToolResult } from '../src/index.js';
import { StreamableHttpClientTransport } from '../src/transports/http-client/index.js';
import {
  PROTOCOL_FIXTURE,
  startGateway,
  toolwireUpstream,
  writeConfig,
  type RunningGateway,
} from './_gateway.js';
import { startRedis, type RedisServerHandle } from './_redis.js';

/** How long Redis holds writes: far past the gateway's 2 s command timeout. */
const PAUSE_MS = 30_000;

describe('a gateway whose Redis freezes while it holds a call for approval', () => {
  let redis: RedisServerHandle;
  let admin: Redis;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
    const config = writeConfig({
      upstreams: { fx: toolwireUpstream(PROTOCOL_FIXTURE) },
      policy: { rules: [{ upstream: 'fx', tool: 'echo', action: 'ask' }], default: 'allow' },
    });
    gateway = await startGateway(['--config', config, '--redis', redis.url, '--approval-timeout', '120000']);
    client = new Client({ name: 'model', version: '1.0.0' });
    await client.connect(new StreamableHttpClientTransport({ url: gateway.url }));
  });

  afterAll(async () => {
    await admin?.call('CLIENT', 'UNPAUSE').catch(() => undefined);
    admin?.disconnect();
    await client?.close();
    await gateway?.close();
    await redis?.close();
  });

  /** Redis's clients that wait with a command it holds (a write read during the pause). */
  async function heldClients(): Promise<string[]> {
    const list = String(await admin.call('CLIENT', 'LIST'));
    return list.split('\n').filter((line) => /\bcmd=(evalsha|eval|hset|zadd|xadd)\b/.test(line));
  }

  it('answers a decision 503 while Redis is frozen, and that decision stays undone once Redis thaws', async () => {
    const events = await gateway.events();
    const waiting = client.callTool('fx__echo', { text: 'held' }) as Promise<CallToolResult>;
    const pending = await events.next('approval.pending');
    const id = (pending.approval as { id: string }).id;
    await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'WRITE');
    try {
      const decision = await gateway.api(`/approvals/${id}/approve`, { body: {} });
      expect(decision.status).toBe(503);
      // The gateway's connection gives up the write that timed out: none is left waiting in Redis.
      await expect.poll(heldClients, { timeout: PAUSE_MS / 2, interval: 200 }).toEqual([]);
    } finally {
      await admin.call('CLIENT', 'UNPAUSE');
    }
    // Through the gateway's own connection (503 while it comes back): had the approval's write stayed on
    // it, it would have run before this read, and the call with it.
    await expect
      .poll(async () => (await gateway.api('/approvals')).status, { timeout: PAUSE_MS / 2, interval: 200 })
      .toBe(200);
    const listed = (await (await gateway.api('/approvals')).json()) as { approvals: { id: string }[] };
    expect(listed.approvals.map((approval) => approval.id)).toEqual([id]);
    const denial = await gateway.api(`/approvals/${id}/deny`, { body: { reason: 'no' } });
    expect(denial.status).toBe(200);
    const result = await waiting;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('no');
  });
});
